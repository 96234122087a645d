// What each dice mode means for the players, in the words the pages use: a short phrase for
// the session's facts and the log, and the one-line warning of what a mode gives away.

export const WARNING = {
  seeded: 'Anyone who reads the scenario or the first event of the log can compute every die before it is rolled.',
  manual: 'The acting side types every die, the opponent\'s too — unless only the referee types them.',
  manualReferee: 'The referee types every die: the sides trust the referee, and nobody can check the dice afterwards.',
};

/** The warning for a session's dice ({mode, manual_by}), or '' for server dice. */
export function warningFor(dice) {
  const mode = dice && dice.mode;
  if (mode === 'seeded') return WARNING.seeded;
  if (mode === 'manual') return dice.manual_by === 'referee' ? WARNING.manualReferee : WARNING.manual;
  return '';
}

/** A short phrase: "server dice (secret seed, checkable after a reveal)". */
export function diceText(dice) {
  const mode = (dice && dice.mode) || 'server';
  if (mode === 'server') return 'server dice (secret seed, checkable after a reveal)';
  if (mode === 'seeded') return 'seeded dice (public seed: every die can be computed in advance)';
  if (mode === 'manual') return dice && dice.manual_by === 'referee' ? 'manual dice (typed by the referee)' : 'manual dice (typed by the acting side)';
  return `${mode} dice`;
}

/** "referee" -> "the referee", "side:knight" -> "side knight". */
export function roleName(role) {
  if (role === 'referee') return 'the referee';
  if (typeof role === 'string' && role.startsWith('side:')) return `side ${role.slice(5)}`;
  return String(role ?? '?');
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random string of printable ASCII from the browser's CSPRNG (for the entropy form). */
export function randomText(n = 24) {
  const out = [];
  const b = new Uint8Array(1);
  while (out.length < n) {
    crypto.getRandomValues(b);
    // Reject the top values that would bias the choice (256 is not a multiple of the alphabet).
    if (b[0] < 256 - (256 % ALPHABET.length)) out.push(ALPHABET[b[0] % ALPHABET.length]);
  }
  return out.join('');
}

/** 64 random hex digits (a seed for seeded mode when the scenario has none). */
export function randomSeed() {
  const b = new Uint8Array(32);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

/** Whether a contribution is acceptable: 1 to 64 printable ASCII characters. */
export function validEntropy(s) {
  return typeof s === 'string' && /^[\x20-\x7e]{1,64}$/.test(s);
}
