// Calls to the node's public APIs, on the page's own origin, and to the
// JSON-RPC of the external chains the data module indexes, at their own
// URLs (docs/explorer.md, "Pages").

// ApiError is a failed call, with the message the API answered.
export class ApiError extends Error {}

// rest GETs a REST path (data, metrics) and answers its JSON; an error
// answer becomes an ApiError with the body's message.
export async function rest(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const msg = body && body.message ? [].concat(body.message).join('; ') : res.statusText;
    throw new ApiError(`${path}: ${res.status} ${msg}`);
  }
  return body;
}

let rpcID = 0;

// rpc calls a JSON-RPC method at path and answers its result; a JSON-RPC
// error becomes an ApiError with its message.
export async function rpc(path, method, params = {}) {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcID, method, params }),
  });
  const body = await res.text().then(parseJSON, () => null);
  if (!body) throw new ApiError(`${method}: ${res.status} ${res.statusText}`);
  if (body.error) throw new ApiError(`${method}: ${body.error.message}`);
  return body.result;
}

// parseJSON reads JSON whose integers beyond 2^53 (avalanchego writes
// amounts as JSON numbers) become decimal strings, exact, where the
// browser gives the reviver their text; null for what is not JSON.
export function parseJSON(text) {
  try {
    return JSON.parse(text, (_, v, ctx) => (typeof v === 'number' && !Number.isSafeInteger(v) && ctx && /^\d+$/.test(ctx.source) ? ctx.source : v));
  } catch {
    return null;
  }
}

// evm calls the JSON-RPC of an EVM chain (positional params): a chain of
// evmChains (an external one at its rpc), or one the node runs, given as
// {alias}.
export const evm = (chain, method, ...params) => rpc(chain.rpc || `/ext/bc/${chain.alias}/rpc`, method, params);

// avm and platform call the X-Chain's and the P-Chain's methods.
export const avm = (method, params) => rpc('/ext/bc/X', `avm.${method}`, params);
export const platform = (method, params) => rpc('/ext/bc/P', `platform.${method}`, params);

// atomic calls an EVM chain's atomic API (docs/api/atomic.md).
export const atomic = (alias, method, params) => rpc(`/ext/bc/${alias}/avax`, `avax.${method}`, params);

let names;

// chainNames answers the aliases of the node's chains by blockchain ID
// (what atomic transactions name): the P-Chain lists the others.
export function chainNames() {
  names ||= Promise.all([
    platform('getBlockchains').catch(() => ({ blockchains: [] })),
    rpc('/ext/info', 'info.getBlockchainID', { alias: 'P' }).catch(() => null),
  ]).then(([{ blockchains }, p]) => {
    const m = new Map(blockchains.map((c) => [c.id, c.name]));
    if (p) m.set(p.blockchainID, 'P');
    return m;
  });
  return names;
}

// index calls the container index of a chain's kind.
export const index = (chain, kind, method, params) => rpc(`/ext/index/${chain}/${kind}`, `index.${method}`, params);

// health answers /ext/health's report (200 and 503 alike: both carry it).
export async function health() {
  const res = await fetch('/ext/health');
  return res.json();
}

// metricsText reads /ext/metrics (Prometheus text) into samples:
// {name, labels, value}.
export async function metricsText() {
  const res = await fetch('/ext/metrics');
  if (!res.ok) throw new ApiError(`/ext/metrics: ${res.status} ${res.statusText}`);
  return parseMetrics(await res.text());
}

// parseMetrics reads the Prometheus text format's sample lines.
export function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line[0] === '#') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[3] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return out;
}

// evmChains lists the EVM chains of the data API, each with its alias,
// EVM chain ID, name and where its JSON-RPC answers: a chain the node
// runs by its alias (from its rpcUrl) on the page's origin, as atomic
// and every other call; an external chain (one another node runs, that
// the data module indexes through its URL) by its name, at its own rpcUrl
// and wsUrl, with none of the node's other APIs. None without the module.
export async function evmChains() {
  let chains;
  try {
    ({ chains } = await rest('/v1/chains'));
  } catch {
    return [];
  }
  return Promise.all(chains.map(async (c) => {
    const info = {
      evmChainId: c.chainId, name: c.chainName, blockchainId: c.platformChainId, token: c.networkToken, status: c.status,
      internalTxs: c.internalTransactionsIndexed !== false,
    };
    const alias = (/\/ext\/bc\/([^/]+)\/rpc$/.exec(c.rpcUrl) || [])[1] || c.platformChainId;
    if (await runs(alias, c.platformChainId)) return { ...info, alias };
    return { ...info, alias: c.chainName, external: true, rpc: c.rpcUrl, ws: c.wsUrl || '' };
  }));
}

const ran = new Map();

// runs reports whether the node runs the chain of this blockchain ID under
// alias: an external chain's URL may name a chain of the same alias on its
// own node, or on this one.
function runs(alias, blockchainId) {
  const key = `${alias} ${blockchainId}`;
  if (!ran.has(key)) {
    ran.set(key, rpc('/ext/info', 'info.getBlockchainID', { alias }).then((r) => r.blockchainID === blockchainId, () => false));
  }
  return ran.get(key);
}

// chainInfo finds an EVM chain of the data API by alias, blockchain ID or
// EVM chain ID.
export async function chainInfo(alias) {
  const c = (await evmChains()).find((c) => c.alias === alias || c.blockchainId === alias || c.evmChainId === alias);
  if (!c) throw new Error(`${alias} is not an EVM chain of this node (the data API lists none by that name)`);
  return c;
}

// network is the name the metrics API's v2 routes know the node's network by.
export async function network() {
  const { networkID } = await rpc('/ext/info', 'info.getNetworkID');
  return networkID === '1' ? 'mainnet' : 'fuji';
}
