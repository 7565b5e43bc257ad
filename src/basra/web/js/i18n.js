// Every string the pages show, in English and Arabic, and the language switch.

const STORE_KEY = "basra.lang";

const RANKS = {
  en: { A: "ace", J: "jack", Q: "queen", K: "king" },
  ar: { A: "آص", J: "ولد", Q: "بنت", K: "شايب" },
};
const SUITS = {
  en: { S: "spades", H: "hearts", D: "diamonds", C: "clubs" },
  ar: { S: "بستوني", H: "كبة", D: "ديناري", C: "سباتي" },
};
const ARABIC_DIGITS = "٠١٢٣٤٥٦٧٨٩";

const DICT = {
  en: {
    basra: "Basra",
    other_lang: "العربية",
    lobby: "Lobby",
    your_name: "Your name",
    name_placeholder: "Guest",
    quick_game: "Quick game",
    quick_hint: "Two players, you against the computer.",
    new_table: "New table",
    variant: "Variant",
    players: "Players",
    partnership: "Partners (sit opposite, score together)",
    basra_points: "Points per basra",
    target: "Target score",
    more_rules: "More rules (one name=value a line)",
    seats: "Seats",
    seat_n: "Seat {n}",
    human: "Human",
    computer: "Computer",
    level: "Level",
    turn_timer: "Turn timer",
    no_timer: "None",
    seconds: "{n} s",
    takeover_level: "Takeover level",
    takeover_hint: "Plays for a player who runs out of time or leaves.",
    create_table: "Create table",
    share_link: "Share this link",
    open_tables: "Open tables",
    no_tables: "No open tables right now.",
    recent_matches: "Recent matches",
    no_matches: "No finished matches yet.",
    join: "Join",
    watch: "Watch",
    download: "Download",
    replay: "Replay",
    replay_upload: "Replay a record file",
    table_code: "Table {code}",
    loading: "Loading…",
    status_waiting: "waiting",
    status_playing: "playing",
    status_finished: "finished",
    winner_is: "Winner: {name}",
    free_seat: "free",
    level_random: "random",
    level_greedy: "greedy",
    level_expert: "expert",
    level_master: "master",
    computer_level: "Computer ({level})",
    you: "You",
    your_turn: "Your turn",
    someones_turn: "{name}'s turn",
    waiting_players: "Waiting for players",
    match_over: "Match over",
    seconds_left: "{n} s left",
    stock: "Stock: {n}",
    floor: "Floor",
    empty_floor: "The floor is empty",
    your_hand: "Your hand",
    hand_of: "{name}'s hand",
    cards_count: "{n} cards",
    dealer: "Dealer",
    dealer_mark: "D",
    away: "away",
    connected: "connected",
    offline: "offline",
    scores: "Scores",
    team_n: "Team {n}",
    pile: "Pile",
    basras: "Basras",
    total: "Total",
    target_n: "Target {n}",
    deal_n: "Deal {n}",
    carry_n: "Majority carried: {n}",
    last_play: "Last play",
    no_play_yet: "No play yet.",
    played: "{name} played {card}",
    played_captured: "{name} played {card} and captured {cards}",
    you_played: "You played {card}",
    you_played_captured: "You played {card} and captured {cards}",
    basra_toast: "Basra!",
    basra_by: "Basra! {name}",
    choose_capture: "Choose a capture",
    choose_capture_for: "Play {card} and take:",
    take_nothing: "Nothing: lay it on the floor",
    cancel: "Cancel",
    deal_score: "Deal {n} score",
    cards: "Cards",
    majority: "Majority",
    card_points: "Card points",
    basra_points_row: "Basra points",
    leftover: "Left on the floor at the end: {cards}, to {name}.",
    leftover_nobody: "Left on the floor at the end: {cards} (nobody).",
    carry_in: "Majority prize carried in: {n}",
    carry_out: "Majority prize carried over: {n}",
    continue: "Continue",
    you_won: "You won",
    you_lost: "You lost",
    side_won: "Side {n} won",
    draw: "Draw",
    final_totals: "Final totals",
    download_record: "Download record",
    rematch: "Rematch",
    away_notice: "You were away, so the computer is playing for you.",
    im_back: "I'm back",
    share_title: "Invite players",
    share_hint: "Send this link to the people you want to play with.",
    copy_link: "Copy link",
    copied: "Copied!",
    joined: "joined",
    waiting_for: "waiting…",
    join_title: "Join this table",
    join_hint: "A seat is free.",
    at_table: "At the table: {names}.",
    reconnecting: "Connection lost. Reconnecting…",
    no_table: "There is no table {code}.",
    token_lost: "Your seat's key is no longer valid.",
    watching: "You are watching.",
    err_bad_message: "The server did not understand that message.",
    err_not_seated: "Watchers cannot play.",
    err_waiting: "The match has not started yet.",
    err_not_your_turn: "It is not your turn.",
    err_stale: "That play came too late.",
    err_illegal: "That play is not allowed.",
    err_ambiguous: "Choose which cards to take.",
    err_match_over: "The match is over.",
    err_not_over: "The match is not over yet.",
    err_network: "Cannot reach the server.",
    err_server_error: "The server could not handle that; please try again.",
    err_unknown_table: "There is no such table.",
    err_unknown_token: "Your seat link is no longer valid; join again.",
    err_storage_down: "The server cannot save right now; try again when the game goes on.",
    err_expired: "This table expired: nobody came to it.",
    err_unrestored: "This table could not be restored from the server's storage. The server's operator has been told.",
    err_too_many_connections: "Too many connections from your network; close some tabs.",
    err_replaced: "This seat was opened in another tab or device, so this page stopped following it.",
    err_rate_limited: "Too many new tables or seats from your network; try again in {seconds} s.",
    err_busy: "The server is busy or cannot save right now; try again in a moment.",
    paused_storage: "The server cannot save right now, so the game is paused. Nothing is lost: play goes on by itself when saving works again.",
    notice_master_busy: "The master was busy, so the expert played this move.",
    paused_turn: "Paused: waiting for the server to save again.",
    replay_title: "Replay",
    record_file: "Record file",
    load: "Load",
    first: "First",
    previous: "Previous",
    next: "Next",
    last: "Last",
    play_k_of_n: "Step {k} of {n}",
    dealt: "Cards dealt.",
    dealer_is: "Dealer: {name}",
    keys_hint: "Keys: ← → Home End",
    hand_keys_hint: "Keys: 1–9 pick a card, ← → move, Enter or Space plays.",
  },
  ar: {
    basra: "باصرة",
    other_lang: "English",
    lobby: "الصالة",
    your_name: "اسمك",
    name_placeholder: "ضيف",
    quick_game: "لعبة سريعة",
    quick_hint: "لاعبان: أنت ضد الكمبيوتر.",
    new_table: "طاولة جديدة",
    variant: "النوع",
    players: "عدد اللاعبين",
    partnership: "شراكة (الشريكان متقابلان ويجمعان النقاط معًا)",
    basra_points: "نقاط الباصرة",
    target: "نقاط الفوز",
    more_rules: "قواعد أخرى (اسم=قيمة في كل سطر)",
    seats: "المقاعد",
    seat_n: "المقعد {n}",
    human: "لاعب",
    computer: "كمبيوتر",
    level: "المستوى",
    turn_timer: "مؤقت الدور",
    no_timer: "بدون",
    seconds: "{n} ث",
    takeover_level: "مستوى البديل",
    takeover_hint: "يلعب بدل اللاعب الذي ينفد وقته أو يغادر.",
    create_table: "أنشئ الطاولة",
    share_link: "شارك هذا الرابط",
    open_tables: "طاولات مفتوحة",
    no_tables: "لا توجد طاولات مفتوحة الآن.",
    recent_matches: "آخر المباريات",
    no_matches: "لا توجد مباريات منتهية بعد.",
    join: "انضم",
    watch: "شاهد",
    download: "تنزيل",
    replay: "إعادة العرض",
    replay_upload: "اعرض ملف تسجيل",
    table_code: "الطاولة {code}",
    loading: "جارٍ التحميل…",
    status_waiting: "بانتظار اللاعبين",
    status_playing: "جارية",
    status_finished: "انتهت",
    winner_is: "الفائز: {name}",
    free_seat: "شاغر",
    level_random: "عشوائي",
    level_greedy: "طمّاع",
    level_expert: "خبير",
    level_master: "أستاذ",
    computer_level: "الكمبيوتر ({level})",
    you: "أنت",
    your_turn: "دورك",
    someones_turn: "دور {name}",
    waiting_players: "بانتظار اللاعبين",
    match_over: "انتهت المباراة",
    seconds_left: "باقي {n} ث",
    stock: "الورق الباقي: {n}",
    floor: "الأرض",
    empty_floor: "الأرض فاضية",
    your_hand: "ورقك",
    hand_of: "ورق {name}",
    cards_count: "{n} ورقات",
    dealer: "الموزّع",
    dealer_mark: "م",
    away: "غائب",
    connected: "متصل",
    offline: "غير متصل",
    scores: "النتيجة",
    team_n: "الفريق {n}",
    pile: "الكومة",
    basras: "باصرات",
    total: "المجموع",
    target_n: "الهدف {n}",
    deal_n: "التوزيعة {n}",
    carry_n: "جائزة الأغلبية المؤجلة: {n}",
    last_play: "آخر لعبة",
    no_play_yet: "لم يلعب أحد بعد.",
    played: "{name} لعب {card}",
    played_captured: "{name} لعب {card} وأكل {cards}",
    you_played: "لعبت {card}",
    you_played_captured: "لعبت {card} وأكلت {cards}",
    basra_toast: "باصرة!",
    basra_by: "باصرة! {name}",
    choose_capture: "اختر ما تأكله",
    choose_capture_for: "العب {card} وخذ:",
    take_nothing: "لا شيء: ضعها على الأرض",
    cancel: "إلغاء",
    deal_score: "نتيجة التوزيعة {n}",
    cards: "الورق",
    majority: "الأغلبية",
    card_points: "نقاط الورق",
    basra_points_row: "نقاط الباصرة",
    leftover: "الباقي على الأرض في النهاية: {cards}، ذهب إلى {name}.",
    leftover_nobody: "الباقي على الأرض في النهاية: {cards} (لم يأخذه أحد).",
    carry_in: "جائزة أغلبية مؤجلة من قبل: {n}",
    carry_out: "جائزة أغلبية مؤجلة للتوزيعة التالية: {n}",
    continue: "متابعة",
    you_won: "فزت",
    you_lost: "خسرت",
    side_won: "فاز الفريق {n}",
    draw: "تعادل",
    final_totals: "النتيجة النهائية",
    download_record: "نزّل التسجيل",
    rematch: "مباراة جديدة",
    away_notice: "كنت غائبًا، فالكمبيوتر يلعب بدلًا منك.",
    im_back: "رجعت",
    share_title: "ادعُ اللاعبين",
    share_hint: "أرسل هذا الرابط لمن تريد اللعب معه.",
    copy_link: "انسخ الرابط",
    copied: "تم النسخ!",
    joined: "انضم",
    waiting_for: "بالانتظار…",
    join_title: "انضم إلى هذه الطاولة",
    join_hint: "يوجد مقعد شاغر.",
    at_table: "على الطاولة: {names}.",
    reconnecting: "انقطع الاتصال. جارٍ إعادة الاتصال…",
    no_table: "لا توجد طاولة {code}.",
    token_lost: "مفتاح مقعدك لم يعد صالحًا.",
    watching: "أنت تشاهد.",
    err_bad_message: "الخادم لم يفهم الرسالة.",
    err_not_seated: "المشاهد لا يستطيع اللعب.",
    err_waiting: "المباراة لم تبدأ بعد.",
    err_not_your_turn: "ليس دورك.",
    err_stale: "وصلت هذه اللعبة متأخرة.",
    err_illegal: "هذه اللعبة غير مسموحة.",
    err_ambiguous: "اختر الورق الذي تأكله.",
    err_match_over: "انتهت المباراة.",
    err_not_over: "المباراة لم تنتهِ بعد.",
    err_network: "تعذّر الوصول إلى الخادم.",
    err_server_error: "تعذّر على الخادم تنفيذ ذلك، حاول مرة أخرى.",
    err_unknown_table: "لا توجد هذه الطاولة.",
    err_unknown_token: "رابط مقعدك لم يعد صالحًا، انضم من جديد.",
    err_storage_down: "لا يستطيع الخادم الحفظ الآن، حاول مجددًا عندما يستأنف اللعب.",
    err_expired: "انتهت صلاحية هذه الطاولة: لم يأتِ إليها أحد.",
    err_unrestored: "تعذّر استرجاع هذه الطاولة من تخزين الخادم. أُبلغ القائم على الخادم.",
    err_too_many_connections: "اتصالات كثيرة جدًا من شبكتك، أغلق بعض النوافذ.",
    err_replaced: "فُتح هذا المقعد في نافذة أو جهاز آخر، فتوقفت هذه الصفحة عن متابعته.",
    err_rate_limited: "طاولات أو مقاعد جديدة كثيرة جدًا من شبكتك، حاول بعد {seconds} ثانية.",
    err_busy: "الخادم مشغول أو لا يستطيع الحفظ الآن، حاول بعد قليل.",
    paused_storage: "لا يستطيع الخادم الحفظ الآن، فاللعبة متوقفة مؤقتًا. لن يضيع شيء: يستأنف اللعب تلقائيًا عندما يعود الحفظ.",
    notice_master_busy: "كان المستوى الأقوى مشغولًا، فلعب الخبير هذه الورقة.",
    paused_turn: "متوقفة مؤقتًا: بانتظار أن يعود الخادم إلى الحفظ.",
    replay_title: "إعادة العرض",
    record_file: "ملف التسجيل",
    load: "افتح",
    first: "الأولى",
    previous: "السابقة",
    next: "التالية",
    last: "الأخيرة",
    play_k_of_n: "الخطوة {k} من {n}",
    dealt: "تم التوزيع.",
    dealer_is: "الموزّع: {name}",
    keys_hint: "المفاتيح: ← → Home End",
    hand_keys_hint: "المفاتيح: 1–9 لاختيار ورقة، ← → للتنقل، Enter أو Space للعب.",
  },
};

export function lang() {
  const stored = localStorage.getItem(STORE_KEY);
  return stored === "ar" ? "ar" : "en";
}

export function isRtl() {
  return lang() === "ar";
}

/** The string `key` in the current language, with `{name}` holes filled from `params`. */
export function t(key, params = {}) {
  const table = DICT[lang()];
  const text = key in table ? table[key] : DICT.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
}

export function hasKey(key) {
  return key in DICT.en;
}

/** "7D" -> ["7", "D"] */
export function splitCard(code) {
  return [code.slice(0, -1), code.slice(-1)];
}

/** The long name of a card: "7 of diamonds", or in Arabic "٧ ديناري". */
export function cardName(code) {
  const [rank, suit] = splitCard(code);
  if (lang() === "ar") {
    const word = RANKS.ar[rank] ?? rank.replace(/\d/g, (d) => ARABIC_DIGITS[Number(d)]);
    return `${word} ${SUITS.ar[suit]}`;
  }
  return `${RANKS.en[rank] ?? rank} of ${SUITS.en[suit]}`;
}

export function cardList(codes) {
  return codes.map(cardName).join(lang() === "ar" ? "، " : ", ");
}

export function levelName(level) {
  const key = `level_${level}`;
  return hasKey(key) ? t(key) : level;
}

/** Fills every [data-i18n] element's text and [data-i18n-label] element's aria-label. */
export function applyLang(root = document) {
  const code = lang();
  document.documentElement.lang = code;
  document.documentElement.dir = code === "ar" ? "rtl" : "ltr";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  }
  document.title = t(document.body.dataset.titleKey || "basra") +
    (document.body.dataset.titleKey ? ` · ${t("basra")}` : "");
}

/**
 * Wires the page's #lang-toggle button; `onChange` redraws what the page drew itself.
 */
export function setupLang(onChange = () => {}) {
  const button = document.getElementById("lang-toggle");
  const label = () => {
    button.textContent = t("other_lang");
    button.lang = lang() === "en" ? "ar" : "en";
  };
  applyLang();
  label();
  button.addEventListener("click", () => {
    localStorage.setItem(STORE_KEY, lang() === "en" ? "ar" : "en");
    applyLang();
    label();
    onChange();
  });
}
