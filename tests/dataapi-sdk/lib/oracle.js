// The oracle: what the data API must answer, derived from the chain alone
// (blocks, receipts, go-ethereum's call tracer, eth_call and eth_getBalance
// through the node's RPC), following docs/data-api.md.
// It shares no code with plugins/dataapi: where the two disagree, one of
// them is wrong.
import { decodeFunctionResult, encodeFunctionData, getAddress, parseAbi, toEventSelector, toFunctionSelector } from "viem";

import { ZERO } from "./chain.js";

const TRANSFER = toEventSelector("Transfer(address,address,uint256)");
const TRANSFER_SINGLE = toEventSelector("TransferSingle(address,address,address,uint256,uint256)");
const TRANSFER_BATCH = toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])");

const ERC721_INTERFACE = "0x80ac58cd";
const ERC1155_INTERFACE = "0xd9b67a26";

/**
 * The native token of the C-Chain as the chain's descriptions show it
 * (docs/data-api.md, "Configuration"); the default of Expected.read.
 */
export const C_CHAIN_TOKEN = { name: "Avalanche", symbol: "AVAX", decimals: 18, description: "The native token of the C-Chain." };

/** What a metadataLastUpdatedTimestamp becomes once checked (see normalize). */
export const CHECKED_TIMESTAMP = "<checked timestamp>";

/**
 * Methods the data API must name: those of the token standards the suite
 * calls. It may name others, but only correctly.
 */
export const STANDARD_METHODS = new Set([
  "transfer(address,uint256)",
  "approve(address,uint256)",
  "transferFrom(address,address,uint256)",
  "safeTransferFrom(address,address,uint256)",
  "safeTransferFrom(address,address,uint256,uint256,bytes)",
  "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
  "mint(address,uint256)",
  "burn(uint256)",
]);

const READS = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint256)",
  "function balanceOf(address) view returns (uint256)",
  "function balanceOf(address, uint256) view returns (uint256)",
  "function ownerOf(uint256) view returns (address)",
  "function tokenURI(uint256) view returns (string)",
  "function uri(uint256) view returns (string)",
  "function supportsInterface(bytes4) view returns (bool)",
]);

/** An address entity. */
const rich = (a) => ({ address: getAddress(a) });

/** Lower-case key of an address. */
export const key = (a) => a.toLowerCase();

/** Compares keys (arrays of bigints and numbers) in order. */
function cmpKeys(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = BigInt(a[i] ?? -1);
    const y = BigInt(b[i] ?? -1);
    if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** Compares addresses as the data API orders tokens: by their bytes. */
const cmpAddress = (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * Reads a view function; returns the decoded answer, or null when the call
 * fails or answers something that does not decode.
 */
export async function read(chain, to, functionName, args, blockNumber) {
  const data = encodeFunctionData({ abi: READS, functionName, args });
  const out = await chain.call(to, data, blockNumber);
  if (out === null) {
    return null;
  }
  try {
    return decodeFunctionResult({ abi: READS, functionName, args, data: out });
  } catch {
    return null;
  }
}

/** The document of a data: URI, null when it is not one. */
function dataDocument(uri) {
  const m = /^data:([^,]*),(.*)$/s.exec(uri);
  if (!m) {
    return null;
  }
  return m[1].toLowerCase().endsWith(";base64")
    ? Buffer.from(m[2], "base64").toString("utf8")
    : decodeURIComponent(m[2]);
}

/**
 * The metadata the data API shows for a token URI (docs/data-api.md, "NFT
 * metadata"): a data: URI is read, a remote one is not (fetching is off by
 * default). The statuses of fetching are not modelled.
 */
export function metadataOf(uri, kind) {
  if (uri.trim() === "") {
    return { indexStatus: "INVALID_TOKEN_URI" };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(uri)?.[1].toLowerCase();
  if (scheme === "http" || scheme === "https" || scheme === "ipfs") {
    return { indexStatus: "UNINDEXED" };
  }
  if (scheme !== "data") {
    return { indexStatus: "INVALID_TOKEN_URI_SCHEME" };
  }
  const text = dataDocument(uri);
  if (text === null) {
    throw new Error(`the oracle does not model the token URI ${JSON.stringify(uri)}`);
  }
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    return { indexStatus: "INVALID_METADATA_JSON" };
  }
  if (doc === null || typeof doc !== "object" || Array.isArray(doc)) {
    return { indexStatus: "INVALID_METADATA" };
  }
  const md = { indexStatus: "INDEXED", metadataLastUpdatedTimestamp: CHECKED_TIMESTAMP };
  const put = (name, v) => {
    if (typeof v === "string" && v !== "") {
      md[name] = v;
    }
  };
  put("name", doc.name);
  put("symbol", doc.symbol);
  put("description", doc.description);
  put("imageUri", doc.image ?? doc.image_url);
  put("animationUri", doc.animation_url);
  put("externalUrl", doc.external_url ?? doc.external_link);
  put("background", doc.background_color);
  if (kind === "ERC-721" && doc.attributes !== undefined) {
    md.attributes = doc.attributes; // compared as JSON (see normalize)
  }
  if (kind === "ERC-1155") {
    if (doc.properties !== undefined) {
      md.properties = doc.properties;
    }
    if (Number.isInteger(doc.decimals)) {
      md.decimals = doc.decimals;
    }
  }
  return md;
}

/**
 * The call frames of a transaction below its own call, depth first, with
 * whether each was undone (it failed, or a frame above it did).
 */
function frames(trace) {
  const out = [];
  const walk = (f, depth, undone) => {
    const reverted = undone || f.error !== undefined;
    out.push({ frame: f, depth, reverted, index: out.length });
    for (const c of f.calls ?? []) {
      walk(c, depth + 1, reverted);
    }
  };
  walk(trace, 0, false);
  return out;
}

/** Everything the suite expects of the data API, read from the chain. */
export class Expected {
  /**
   * Reads blocks 1 to head of chain and derives what the data API must
   * answer for them. methods maps 4-byte selectors to the signatures of
   * the scenario's contracts; networkToken is the chain's native token,
   * as the chain's descriptions show it (nothing on the chain names it).
   */
  static async read(chain, head, methods, networkToken = C_CHAIN_TOKEN) {
    const e = new Expected(chain, head, methods, networkToken);
    await e.load();
    return e;
  }

  constructor(chain, head, methods, networkToken) {
    this.chain = chain;
    this.networkToken = networkToken;
    this.chainId = String(chain.chainId);
    this.head = head;
    this.methods = methods;
    this.blocks = []; // by number - 1
    this.genesis = null; // block 0
    this.txs = new Map(); // hash -> record
    this.addresses = new Map(); // key -> lists of the address
    this.tokens = new Map(); // key -> {address, kind, first, name, symbol, decimals}
    this.nfts = new Map(); // token key + ":" + id -> {token, id, kind, first, uri, metadata}
    this.created = new Map(); // key -> {address, block, kind, name, symbol, decimals}
  }

  async load() {
    const { chain } = this;
    const numbers = Array.from({ length: Number(this.head) }, (_, i) => BigInt(i + 1));
    this.blocks = await Promise.all(numbers.map((n) => chain.client.getBlock({ blockNumber: n, includeTransactions: true })));
    this.genesis = await chain.client.getBlock({ blockNumber: 0n, includeTransactions: true });
    const recs = this.blocks.flatMap((block) => block.transactions.map((tx) => ({ block, tx })));
    await Promise.all(
      recs.map(async (r) => {
        [r.receipt, r.trace] = await Promise.all([
          chain.client.getTransactionReceipt({ hash: r.tx.hash }),
          chain.trace(r.tx.hash),
        ]);
      }),
    );
    for (const r of recs) {
      this.decode(r);
      this.txs.set(r.tx.hash, r);
    }
    await this.readTokens();
    for (const r of recs) {
      this.list(r);
    }
  }

  /** Decodes a transaction's transfers, internal transactions and creations. */
  decode(r) {
    const { block, tx, receipt, trace } = r;
    const blockNumber = block.number;
    r.erc20 = [];
    r.erc721 = [];
    r.erc1155 = [];
    for (const log of receipt.logs) {
      const [topic, ...rest] = log.topics;
      const addr = (t) => getAddress(`0x${t.slice(26)}`);
      const base = { token: getAddress(log.address), logIndex: log.logIndex };
      if (topic === TRANSFER && rest.length === 2 && (log.data.length - 2) / 2 === 32) {
        r.erc20.push({ ...base, from: addr(rest[0]), to: addr(rest[1]), value: BigInt(log.data), key: [log.logIndex] });
        this.token(base.token, "ERC-20", blockNumber);
      } else if (topic === TRANSFER && rest.length === 3 && log.data === "0x") {
        const id = BigInt(rest[2]);
        r.erc721.push({ ...base, from: addr(rest[0]), to: addr(rest[1]), id, key: [log.logIndex] });
        this.token(base.token, "ERC-721", blockNumber);
        this.nft(base.token, id, "ERC-721", blockNumber);
      } else if ((topic === TRANSFER_SINGLE || topic === TRANSFER_BATCH) && rest.length === 3) {
        const words = (log.data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
        let pairs;
        if (topic === TRANSFER_SINGLE) {
          pairs = [[words[0], words[1]]];
        } else {
          const arr = (off) => words.slice(Number(off) / 32 + 1, Number(off) / 32 + 1 + Number(words[Number(off) / 32]));
          const ids = arr(words[0]);
          const values = arr(words[1]);
          pairs = ids.map((id, i) => [id, values[i]]);
        }
        pairs.forEach(([id, value], i) => {
          r.erc1155.push({ ...base, from: addr(rest[1]), to: addr(rest[2]), id, value, key: [log.logIndex, i] });
          this.nft(base.token, id, "ERC-1155", blockNumber);
        });
        this.token(base.token, "ERC-1155", blockNumber);
      }
    }
    // docs/data-api.md, "Indexing": CALL and CALLCODE moving value, CREATE and CREATE2 (CREATE3:
    // a CREATE by a contract the transaction made with CREATE2).
    r.internal = [];
    r.creations = [];
    if (tx.to === null && receipt.status === "success") {
      r.creations.push({ address: getAddress(receipt.contractAddress), factory: null, key: [0] });
    }
    const create2 = new Set();
    for (const { frame: f, depth, reverted, index } of frames(trace)) {
      if (f.type === "CREATE2" && f.to) {
        create2.add(key(f.to));
      }
      if (depth === 0) {
        continue;
      }
      const value = BigInt(f.value ?? 0);
      let type = f.type;
      if (type === "CALL" || type === "CALLCODE") {
        if (value === 0n) {
          continue;
        }
      } else if (type === "CREATE" || type === "CREATE2") {
        if (type === "CREATE" && create2.has(key(f.from))) {
          type = "CREATE3";
        }
        if (!reverted) {
          r.creations.push({ address: getAddress(f.to), factory: getAddress(f.from), key: [index] });
        }
      } else {
        continue;
      }
      r.internal.push({
        from: getAddress(f.from),
        to: getAddress(f.to ?? ZERO), // a failed creation made nothing: the zero address (docs/evm.md)
        type,
        value,
        reverted,
        gas: BigInt(f.gas),
        gasUsed: BigInt(f.gasUsed),
        key: [index],
      });
    }
    for (const c of r.creations) {
      if (!this.created.has(key(c.address))) {
        this.created.set(key(c.address), { address: c.address, block: blockNumber });
      }
    }
  }

  token(address, kind, block) {
    if (!this.tokens.has(key(address))) {
      this.tokens.set(key(address), { address, kind, first: block });
    }
  }

  nft(token, id, kind, block) {
    const k = `${key(token)}:${id}`;
    if (!this.nfts.has(k)) {
      this.nfts.set(k, { token, id, kind, first: block });
    }
  }

  /**
   * Reads what only the contracts know: token names, symbols and decimals
   * and NFT URIs where each first appears, and what each new contract is
   * after the block that made it (ERC-165, then decimals and symbol).
   */
  async readTokens() {
    const { chain } = this;
    await Promise.all([
      ...[...this.tokens.values()].map(async (t) => {
        const [name, symbol, decimals] = await Promise.all([
          read(chain, t.address, "name", [], t.first),
          read(chain, t.address, "symbol", [], t.first),
          read(chain, t.address, "decimals", [], t.first),
        ]);
        Object.assign(t, { name: name ?? "", symbol: symbol ?? "", decimals: decimals ?? 0n });
      }),
      ...[...this.nfts.values()].map(async (n) => {
        const fn = n.kind === "ERC-721" ? "tokenURI" : "uri";
        let uri = await read(chain, n.token, fn, [n.id], n.first);
        if (uri === null) {
          n.uri = "";
          n.metadata = { indexStatus: "MISSING_TOKEN" };
          return;
        }
        if (n.kind === "ERC-1155") {
          uri = uri.replaceAll("{id}", n.id.toString(16).padStart(64, "0"));
        }
        n.uri = uri;
        n.metadata = metadataOf(uri, n.kind);
      }),
      ...[...this.created.values()].map(async (c) => {
        const [is721, is1155, name, symbol, decimals] = await Promise.all([
          read(chain, c.address, "supportsInterface", [ERC721_INTERFACE], c.block),
          read(chain, c.address, "supportsInterface", [ERC1155_INTERFACE], c.block),
          read(chain, c.address, "name", [], c.block),
          read(chain, c.address, "symbol", [], c.block),
          read(chain, c.address, "decimals", [], c.block),
        ]);
        c.kind = is721 ? "ERC-721" : is1155 ? "ERC-1155" : decimals !== null && symbol !== null ? "ERC-20" : "UNKNOWN";
        Object.assign(c, { name, symbol, decimals });
      }),
    ]);
  }

  /** The method of a transaction (docs/data-api.md, endpoint 1). */
  method(tx) {
    if (tx.to === null) {
      return { callType: "CONTRACT_CREATION", methodHash: "", methodName: "Contract Created" };
    }
    if (tx.input === "0x") {
      return { callType: "NATIVE_TRANSFER", methodHash: "", methodName: "Native Transfer" };
    }
    const methodHash = tx.input.slice(0, 10);
    const m = { callType: "CONTRACT_CALL", methodHash };
    if (STANDARD_METHODS.has(this.methods.get(methodHash))) {
      m.methodName = this.methods.get(methodHash);
    }
    return m;
  }

  /** The native transaction of a list item (docs/data-api.md, endpoint 1). */
  native(r) {
    const { block, tx, receipt } = r;
    let to = tx.to;
    if (to === null) {
      to = receipt.status === "success" ? receipt.contractAddress : ZERO;
    }
    return {
      blockNumber: String(block.number),
      blockTimestamp: Number(block.timestamp),
      blockHash: block.hash,
      chainId: this.chainId,
      blockIndex: tx.transactionIndex,
      txHash: tx.hash,
      txStatus: receipt.status === "success" ? "1" : "0",
      txType: Number(tx.typeHex),
      gasLimit: String(tx.gas),
      gasUsed: String(receipt.gasUsed),
      gasPrice: String(receipt.effectiveGasPrice),
      nonce: String(tx.nonce),
      from: rich(tx.from),
      to: rich(to),
      method: this.method(tx),
      value: String(tx.value),
    };
  }

  erc20Token(address) {
    const t = this.tokens.get(key(address));
    return { address: getAddress(address), name: t.name, symbol: t.symbol, decimals: Number(t.decimals), ercType: "ERC-20" };
  }

  erc721Token(address, id) {
    const t = this.tokens.get(key(address));
    const n = this.nfts.get(`${key(address)}:${id}`);
    return {
      address: getAddress(address),
      name: t.name,
      symbol: t.symbol,
      ercType: "ERC-721",
      tokenId: String(id),
      tokenUri: n.uri,
      metadata: n.metadata,
    };
  }

  erc1155Token(address, id) {
    const n = this.nfts.get(`${key(address)}:${id}`);
    return { address: getAddress(address), ercType: "ERC-1155", tokenId: String(id), tokenUri: n.uri, metadata: n.metadata };
  }

  /** The answer parts of a transaction's transfers and internal transactions. */
  parts(r) {
    return {
      erc20Transfers: r.erc20.map((x) => ({
        from: rich(x.from),
        to: rich(x.to),
        logIndex: x.logIndex,
        value: String(x.value),
        erc20Token: this.erc20Token(x.token),
      })),
      erc721Transfers: r.erc721.map((x) => ({
        from: rich(x.from),
        to: rich(x.to),
        logIndex: x.logIndex,
        erc721Token: this.erc721Token(x.token, x.id),
      })),
      erc1155Transfers: r.erc1155.map((x) => ({
        from: rich(x.from),
        to: rich(x.to),
        logIndex: x.logIndex,
        value: String(x.value),
        erc1155Token: this.erc1155Token(x.token, x.id),
      })),
      internalTransactions: r.internal.map((x) => ({
        from: rich(x.from),
        to: rich(x.to),
        internalTxType: x.type,
        value: String(x.value),
        isReverted: x.reverted,
        gasUsed: String(x.gasUsed),
        gasLimit: String(x.gas),
      })),
    };
  }

  /** Endpoint 9: the complete transaction. */
  transaction(hash) {
    const r = this.txs.get(hash);
    const { block, tx } = r;
    const nativeTransaction = {
      ...this.native(r),
      input: tx.input,
      baseFeePerGas: String(block.baseFeePerGas ?? 0n),
    };
    if (tx.typeHex !== "0x0" && tx.typeHex !== "0x1") {
      nativeTransaction.maxFeePerGas = String(tx.maxFeePerGas);
      nativeTransaction.maxPriorityFeePerGas = String(tx.maxPriorityFeePerGas);
    }
    const out = { nativeTransaction, networkTokenDetails: { networkToken: this.networkToken } };
    for (const [name, list] of Object.entries(this.parts(r))) {
      if (list.length > 0) {
        out[name] = list;
      }
    }
    return out;
  }

  /** The lists of an address, created on first use. */
  lists(address) {
    const k = key(address);
    if (!this.addresses.has(k)) {
      this.addresses.set(k, {
        address: getAddress(address),
        txs: [],
        native: [],
        erc20: [],
        erc721: [],
        erc1155: [],
        internals: [],
        deployments: [],
      });
    }
    return this.addresses.get(k);
  }

  /**
   * Adds a transaction to the lists of every address that took part in it:
   * its sender, its recipient (or the contract it made), and the senders
   * and recipients of its transfers and internal transactions, each of
   * which sees only its own (docs/data-api.md, endpoint 1).
   */
  list(r) {
    const { block, tx } = r;
    const native = this.native(r);
    const parts = this.parts(r);
    const views = new Map();
    const view = (a) => {
      const k = key(a);
      if (!views.has(k)) {
        views.set(k, { address: a, item: { nativeTransaction: native } });
      }
      return views.get(k).item;
    };
    view(native.from.address);
    view(native.to.address);
    const place = { blockNumber: String(block.number), blockTimestamp: Number(block.timestamp), blockHash: block.hash, txHash: tx.hash };
    const order = [block.number, tx.transactionIndex];
    const kinds = [
      ["erc20Transfers", r.erc20, "erc20"],
      ["erc721Transfers", r.erc721, "erc721"],
      ["erc1155Transfers", r.erc1155, "erc1155"],
      ["internalTransactions", r.internal, "internals"],
    ];
    for (const [name, raw, standalone] of kinds) {
      parts[name].forEach((part, i) => {
        const parties = key(part.from.address) === key(part.to.address) ? [part.from] : [part.from, part.to];
        for (const p of parties) {
          const item = view(p.address);
          (item[name] ??= []).push(part);
          if (standalone) {
            this.lists(p.address)[standalone].push({ key: [...order, ...raw[i].key], value: { ...place, ...part } });
          }
        }
      });
    }
    for (const { address, item } of views.values()) {
      this.lists(address).txs.push({ key: order, value: item });
    }
    // The native list: the sender and the recipient (or contract made).
    for (const a of new Set([key(native.from.address), key(native.to.address)])) {
      this.lists(a).native.push({ key: order, value: native });
    }
    for (const c of r.creations) {
      const made = this.created.get(key(c.address));
      const contract = { address: c.address, ercType: made.kind };
      if (made.name !== null) {
        contract.name = made.name;
      }
      if (made.kind !== "UNKNOWN" && made.symbol !== null) {
        contract.symbol = made.symbol;
      }
      if (made.kind === "ERC-20") {
        contract.decimals = Number(made.decimals);
      }
      contract.deploymentDetails = { txHash: tx.hash, deployerAddress: getAddress(tx.from) };
      if (c.factory) {
        contract.deploymentDetails.deployerContractAddress = c.factory;
      }
      const item = { key: [...order, ...c.key], value: contract };
      this.lists(tx.from).deployments.push(item);
      if (c.factory && key(c.factory) !== key(tx.from)) {
        this.lists(c.factory).deployments.push(item);
      }
    }
  }

  /**
   * The items of an address's list, oldest first, in a block window
   * (start inclusive, end exclusive; either may be undefined).
   */
  items(address, list, { start, end } = {}) {
    const all = this.addresses.get(key(address))?.[list] ?? [];
    return all
      .filter(({ key: k }) => (start === undefined || k[0] >= BigInt(start)) && (end === undefined || k[0] < BigInt(end)))
      .sort((a, b) => cmpKeys(a.key, b.key))
      .map((x) => x.value);
  }

  /** ERC-20 tokens, ERC-1155 tokens and their IDs, by address and ID. */
  tokensOf(kind) {
    return [...this.tokens.values()].filter((t) => t.kind === kind).sort((a, b) => cmpAddress(a.address, b.address));
  }

  nftsOf(kind) {
    return [...this.nfts.values()]
      .filter((n) => n.kind === kind)
      .sort((a, b) => cmpAddress(a.token, b.token) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async nativeBalance(holder, block) {
    const balance = await this.chain.client.getBalance({ address: holder, blockNumber: block });
    const { name, symbol, decimals } = this.networkToken;
    return { name, symbol, decimals, chainId: this.chainId, balance: String(balance) };
  }

  /** Endpoint 5 at a block: the native balance and the non-zero ERC-20 balances. */
  async erc20Balances(holder, block, only) {
    const tokens = this.tokensOf("ERC-20").filter((t) => !only || only.some((a) => key(a) === key(t.address)));
    const [native, balances] = await Promise.all([
      this.nativeBalance(holder, block),
      Promise.all(tokens.map((t) => read(this.chain, t.address, "balanceOf", [holder], block))),
    ]);
    const items = [];
    tokens.forEach((t, i) => {
      if (balances[i]) {
        items.push({
          ...this.erc20Token(t.address),
          chainId: this.chainId,
          balance: String(balances[i]),
          tokenReputation: null,
        });
      }
    });
    return { nativeTokenBalance: native, erc20TokenBalances: items };
  }

  async erc1155Items(holder, block, only) {
    const nfts = this.nftsOf("ERC-1155").filter((n) => !only || key(only) === key(n.token));
    const balances = await Promise.all(nfts.map((n) => read(this.chain, n.token, "balanceOf", [holder, n.id], block)));
    const items = [];
    nfts.forEach((n, i) => {
      if (balances[i]) {
        items.push({ ...this.erc1155Token(n.token, n.id), chainId: this.chainId, balance: String(balances[i]) });
      }
    });
    return items;
  }

  /** Endpoint 6 at a block: the native balance and the non-zero ERC-1155 balances. */
  async erc1155Balances(holder, block, only) {
    const [native, items] = await Promise.all([this.nativeBalance(holder, block), this.erc1155Items(holder, block, only)]);
    return { nativeTokenBalance: native, erc1155TokenBalances: items };
  }

  /** Endpoint 7 at the head: the ERC-721 tokens the holder owns and its ERC-1155 balances. */
  async collectibles(holder, only) {
    const nfts = this.nftsOf("ERC-721").filter((n) => !only || key(only) === key(n.token));
    const [owners, multi] = await Promise.all([
      Promise.all(nfts.map((n) => read(this.chain, n.token, "ownerOf", [n.id], this.head))),
      this.erc1155Items(holder, this.head, only),
    ]);
    const items = [];
    nfts.forEach((n, i) => {
      if (owners[i] && key(owners[i]) === key(holder)) {
        const t = this.erc721Token(n.token, n.id);
        items.push({ ...t, ownerAddress: getAddress(holder), chainId: this.chainId, sort: [n.token, n.id] });
      }
    });
    for (const m of multi) {
      items.push({ ...m, sort: [m.address, BigInt(m.tokenId)] });
    }
    items.sort((a, b) => cmpAddress(a.sort[0], b.sort[0]) || (a.sort[1] < b.sort[1] ? -1 : a.sort[1] > b.sort[1] ? 1 : 0));
    return items.map(({ sort, ...item }) => item);
  }

  /**
   * Endpoint 28: the chain's transactions, newest first, those of a status
   * ("success", "failed") or all (undefined).
   */
  chainTxs(status) {
    return this.blocks
      .flatMap((b) => b.transactions.map((tx) => this.txs.get(tx.hash)))
      .filter((r) => status === undefined || (r.receipt.status === "success") === (status === "success"))
      .map((r) => this.native(r))
      .toReversed();
  }

  /** Endpoint 29: a block's transactions, 0 to head, in their order. */
  blockTxs(number) {
    const b = Number(number) === 0 ? this.genesis : this.blocks[Number(number) - 1];
    return b.transactions.map((tx) => this.native(this.txs.get(tx.hash)));
  }

  /** Endpoint 11: a block, 0 to head. */
  block(number) {
    const b = Number(number) === 0 ? this.genesis : this.blocks[Number(number) - 1];
    let fees = 0n;
    for (const tx of b.transactions) {
      const { receipt } = this.txs.get(tx.hash);
      fees += receipt.gasUsed * receipt.effectiveGasPrice;
    }
    const cumulative = this.blocks.slice(0, Number(number)).reduce((n, x) => n + x.transactions.length, 0);
    return {
      chainId: this.chainId,
      blockNumber: String(b.number),
      blockTimestamp: Number(b.timestamp),
      blockHash: b.hash,
      txCount: b.transactions.length,
      baseFee: String(b.baseFeePerGas ?? 0n),
      gasUsed: String(b.gasUsed),
      gasLimit: String(b.gasLimit),
      gasCost: "0",
      parentHash: b.parentHash,
      feesSpent: String(fees),
      cumulativeTransactions: String(cumulative),
    };
  }
}

/** Maps the selectors of the functions of ABIs to their signatures. */
export function selectors(contracts) {
  const out = new Map();
  for (const { abi } of Object.values(contracts)) {
    for (const item of abi) {
      if (item.type === "function") {
        const sig = `${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
        out.set(toFunctionSelector(sig), sig);
      }
    }
  }
  return out;
}
