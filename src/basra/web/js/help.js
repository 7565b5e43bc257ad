// The help page (/help): how rated play, chat and accounts work. Its texts are all in
// i18n.js; the page only follows the language and shows who is logged in.

import { setupAccount, redrawAccount } from "./account.js";
import { setupLang } from "./i18n.js";

setupLang(redrawAccount);
setupAccount();
