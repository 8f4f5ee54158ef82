// What the contract, token and NFT endpoints must answer (docs/data-api.md,
// endpoints 19 to 27), derived from the oracle's records of the chain
// (lib/oracle.js): transfers from the receipts' logs, contracts from the
// receipts and frames, URIs and metadata from the tokens themselves.
import { key, metadataOf, read } from "./oracle.js";

/** Compares key arrays of numbers and bigints. */
function cmp(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = BigInt(a[i]);
    const y = BigInt(b[i]);
    if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return a.length - b.length;
}

/** Endpoint 21: the transfers of token, newest first, in a block window. */
export function tokenTransfers(want, token, { start, end } = {}) {
  const out = [];
  for (const r of want.txs.values()) {
    const { block, tx } = r;
    const n = block.number;
    if ((start !== undefined && n < BigInt(start)) || (end !== undefined && n >= BigInt(end))) {
      continue;
    }
    const place = { blockNumber: String(n), blockTimestamp: Number(block.timestamp), blockHash: block.hash, txHash: tx.hash };
    const parts = want.parts(r);
    for (const [name, raw] of [
      ["erc20Transfers", r.erc20],
      ["erc721Transfers", r.erc721],
      ["erc1155Transfers", r.erc1155],
    ]) {
      raw.forEach((x, i) => {
        if (key(x.token) === key(token)) {
          const k = [n, tx.transactionIndex, ...x.key];
          out.push({ key: k.length === 3 ? [...k, 0] : k, value: { ...place, ...parts[name][i] } });
        }
      });
    }
  }
  return out.sort((a, b) => cmp(b.key, a.key)).map((x) => x.value);
}

/** Endpoints 19 and 20: each contract created, as endpoint 8 lists it, by address. */
export function contracts(want) {
  const out = new Map();
  for (const lists of want.addresses.values()) {
    for (const { value } of lists.deployments) {
      out.set(key(value.address), value);
    }
  }
  return out;
}

/** Endpoints 22 and 23: the tokens of collection the chain saw, by ID. */
export function collectionTokens(want, collection) {
  return [...want.nfts.values()]
    .filter((n) => key(n.token) === key(collection))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((n) => (n.kind === "ERC-721" ? want.erc721Token(n.token, n.id) : want.erc1155Token(n.token, n.id)));
}

/** Endpoint 25: the native balance now and the ERC-721 tokens holder owns, optionally of one collection. */
export async function erc721Balances(want, holder, only) {
  const [nativeTokenBalance, all] = await Promise.all([want.nativeBalance(holder, want.head), want.collectibles(holder, only)]);
  return { nativeTokenBalance, erc721TokenBalances: all.filter((c) => c.ercType === "ERC-721") };
}

/** Endpoint 27: an address's v2 transaction list, whose ERC-20 tokens carry tokenReputation (unknown: null). */
export function v2Transactions(items) {
  return items.map((item) =>
    item.erc20Transfers
      ? { ...item, erc20Transfers: item.erc20Transfers.map((t) => ({ ...t, erc20Token: { ...t.erc20Token, tokenReputation: null } })) }
      : item,
  );
}

/**
 * Endpoint 23 after a reindex (endpoint 24): the token's URI read at the
 * head, and its document; a token gone by then (burnt) is MISSING_TOKEN.
 */
export async function nftAtHead(want, token, id) {
  const n = want.nfts.get(`${key(token)}:${id}`);
  const base = n.kind === "ERC-721" ? want.erc721Token(token, id) : want.erc1155Token(token, id);
  let uri = await read(want.chain, n.token, n.kind === "ERC-721" ? "tokenURI" : "uri", [n.id], want.head);
  if (uri === null) {
    return { ...base, tokenUri: "", metadata: { indexStatus: "MISSING_TOKEN" } };
  }
  if (n.kind === "ERC-1155") {
    uri = uri.replaceAll("{id}", n.id.toString(16).padStart(64, "0"));
  }
  return { ...base, tokenUri: uri, metadata: metadataOf(uri, n.kind) };
}
