// @ts-check
// Deterministic, realistic logbook entries: names of about 20 characters and messages of about 120, in a mix
// of scripts (Latin with accents, Cyrillic, Greek, CJK, Arabic and Hebrew RTL, emoji), the same on every run.

const FIRST_NAMES = [
  'Anna', 'Jörg', 'Zoë', 'Ólafur', 'François', 'Łucja', 'Søren', 'Mateo', 'Chloé', 'Ngozi', 'Priya', 'Kenji',
  'Ольга', 'Дмитрий', 'Σοφία', 'Νίκος', '山田', '美咲', '민준', 'محمد', 'فاطمة', 'נועה', 'Aarav', 'Siobhán',
];
const LAST_NAMES = [
  'Müller', 'García López', 'Kowalczyk', 'Nguyễn', 'O’Brien', 'Johansson', 'da Silva', 'Dubois', 'Okafor',
  'Иванова', 'Петров', 'Παπαδοπούλου', '太郎', '佐藤', '김', 'العلي', 'الحسن', 'כהן', 'Sharma', 'Ó Súilleabháin',
];
const HANDLES = ['TrailFox', 'cache_hunter', 'GeoNomad', 'moss&stone', 'ᚱᚢᚾᛖ', 'KäferKids', '🦊 fox team', 'северный_ветер'];
const SENTENCES = [
  'Found it after twenty minutes of searching under the old oak.',
  'Beautiful view from the ridge, thanks for placing this one!',
  'TFTC — the container was a bit damp, replaced the log sheet.',
  'Wir haben den Cache mit den Kindern gefunden, super Versteck!',
  'Trouvé sous la pierre plate, merci pour la balade au bord du lac.',
  '¡Qué lugar tan bonito! Encontrado a la primera.',
  'Отличный тайник, спасибо автору за прогулку по лесу.',
  'Ωραία κρυψώνα, βρέθηκε εύκολα μετά τη βροχή.',
  '雨の中でしたが無事に見つけました。ありがとう！',
  '경치가 정말 좋아요. 감사합니다!',
  'وجدناه بعد بحث طويل، شكراً على هذا المكان الجميل.',
  'מצאנו אותו ליד העץ הגדול, תודה רבה!',
  'Left a travel bug 🐞 and took a small wooden coin.',
  'Muggles everywhere 👀 but we managed a stealthy grab.',
  '🌲🌲 Lovely forest walk, log signed at 7:42 am. 🌄',
  'Nr. 1,204 for our team; the riddle took us three evenings.',
];

/** A small, fast, seedable PRNG (mulberry32): the same entries on every run and machine. */
export function createRandom(seed = 0x5eed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * @template T
 * @param {() => number} random
 * @param {readonly T[]} items
 * @returns {T}
 */
function pick(random, items) {
  return items[Math.floor(random() * items.length)];
}

/**
 * At most `limit` code points (never a lone surrogate), without trailing spaces.
 * @param {string} text
 * @param {number} limit
 */
function clip(text, limit) {
  return Array.from(text).slice(0, limit).join('').trimEnd();
}

/** @param {() => number} random */
function makeName(random) {
  const style = random();
  let name;
  if (style < 0.55) name = `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)}`;
  else if (style < 0.85) name = `${pick(random, FIRST_NAMES)} (${pick(random, HANDLES)})`;
  else name = `${pick(random, HANDLES)} ${Math.floor(random() * 1000)}`;
  // About 20 characters: pad short names with a team tag, clip long ones.
  if (Array.from(name).length < 16) name += ` & ${pick(random, FIRST_NAMES)}`;
  return clip(name, 26);
}

/** @param {() => number} random */
function makeMessage(random) {
  const target = 100 + Math.floor(random() * 41); // 100-140 characters, about 120 on average
  let message = pick(random, SENTENCES);
  while (Array.from(message).length < target) message += ` ${pick(random, SENTENCES)}`;
  return clip(message, target);
}

/**
 * The newest seeded entry's time: the start of yesterday (UTC), so an entry signed now is always the newest,
 * and the timestamps stay the same all day. Older entries go back from here.
 */
export const NEWEST_AT = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;

/**
 * Entries `from` (inclusive) to `to` (exclusive) in newest-first order: index 0 is the newest. Entry i is the
 * same whichever range it is generated in, so a table can grow by appending older entries.
 * @param {number} from
 * @param {number} to
 * @returns {{ created_at: string, name: string, message: string }[]}
 */
export function makeEntries(from, to) {
  const entries = [];
  for (let index = from; index < to; index += 1) {
    const random = createRandom(0x5eed ^ Math.imul(index + 1, 0x9e3779b1));
    // Roughly one entry every 7 minutes, with distinct microsecond timestamps so the order is total.
    const millisBack = index * 420_000 + Math.floor(random() * 300_000);
    const micros = String(index % 1000).padStart(3, '0');
    const at = new Date(NEWEST_AT - millisBack).toISOString().replace('Z', `${micros}Z`);
    entries.push({ created_at: at, name: makeName(random), message: makeMessage(random) });
  }
  return entries;
}
