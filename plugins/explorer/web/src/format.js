// Formatting of amounts, times and IDs.

// units writes an integer amount (a decimal string or number) of the
// smallest unit with decimals digits after the point, trailing zeros cut.
export function units(amount, decimals) {
  if (amount === undefined || amount === null || amount === '') return '';
  let v = BigInt(amount);
  const neg = v < 0n;
  if (neg) v = -v;
  const base = 10n ** BigInt(decimals);
  const whole = (v / base).toLocaleString('en-US');
  let frac = (v % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return (neg ? '-' : '') + whole + (frac ? '.' + frac : '');
}

// wei writes wei as AVAX (18 decimals), nAVAX as AVAX (9 decimals).
export const wei = (v, symbol = 'AVAX') => `${units(v, 18)} ${symbol}`;
export const navax = (v) => `${units(v, 9)} AVAX`;

// hexNum reads a 0x quantity as a decimal string.
export const hexNum = (h) => BigInt(h).toString();

// time writes unix seconds as UTC date and time.
export function time(sec) {
  if (sec === undefined || sec === null) return '';
  return new Date(Number(sec) * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

// ago writes how long ago unix seconds were, roughly.
export function ago(sec, now = Date.now() / 1000) {
  return duration(Math.max(0, now - Number(sec))) + ' ago';
}

// blockAge writes how long ago a block was made, and blockTime when: the
// genesis block (number 0) was not made at its timestamp, which is the
// chain's design (0, 1970, on the local C-Chain), so it shows as genesis.
export const blockAge = (number, sec) => (BigInt(number) === 0n ? 'genesis' : ago(sec));
export function blockTime(number, sec) {
  if (BigInt(number) !== 0n) return time(sec);
  return Number(sec) > 0 ? `genesis (${time(sec)})` : 'genesis';
}

// duration writes seconds as the two largest units.
export function duration(s) {
  s = Math.floor(s);
  const parts = [[86400, 'd'], [3600, 'h'], [60, 'm'], [1, 's']];
  const out = [];
  for (const [n, u] of parts) {
    if (s >= n || (u === 's' && out.length === 0)) {
      out.push(Math.floor(s / n) + u);
      s %= n;
    }
    if (out.length === 2) break;
  }
  return out.join(' ');
}

// short cuts a long ID to its ends.
export function short(id, n = 8) {
  if (!id || id.length <= 2 * n + 3) return id || '';
  return `${id.slice(0, n + (id.startsWith('0x') ? 2 : 0))}…${id.slice(-n)}`;
}

// num writes an integer with thousands separators.
export const num = (v) => (v === undefined || v === null ? '' : BigInt(v).toLocaleString('en-US'));
