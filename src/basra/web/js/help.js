// The help page (/help): how rated play, chat and accounts work. Its texts are all in
// the catalogs (web/i18n/); the page only follows the language and shows who is logged in.

import { setupAccount, redrawAccount } from "./account.js";
import { setupLang } from "./i18n.js";

setupLang(redrawAccount);
setupAccount();
