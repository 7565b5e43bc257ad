// The rules page (/rules, /rules/{preset}): every text is in the catalogs and drawn by the
// server; the page only follows the language and shows who is logged in.

import { redrawAccount, setupAccount } from "./account.js";
import { setupLang } from "./i18n.js";

setupLang(redrawAccount);
setupAccount();
