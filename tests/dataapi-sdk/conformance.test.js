// The data API conformance suite (docs/data-api.md, "Conformance suite"):
// a scenario on an EVM chain, then every EVM endpoint of docs/data-api.md read
// through the official SDK and checked against the chain.
//
// Run by `go test ./tests/e2e -run TestDataAPISDK`, which starts a
// node and sets DATAAPI_NODE_URL; or against any local node:
//   DATAAPI_NODE_URL=http://127.0.0.1:9650 node --test conformance.test.js
// The chain is the node's C-Chain, or with DATAAPI_CHAIN_RPC an external
// chain the node indexes (TestDataAPIExternalGeth): DATAAPI_CHAIN_NAME,
// DATAAPI_CHAIN_BLOCKCHAIN_ID, DATAAPI_CHAIN_WS and DATAAPI_CHAIN_SYMBOL
// say what its external-chains entry configures, DATAAPI_GAS_SCALE
// multiplies the gas of the scenario's transactions (5 on go-ethereum
// --dev, whose fork prices new state higher), and the funded key is funded
// from the chain's dev account when it has nothing (or
// DATAAPI_FUND_FROM_DEV=1).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { HTTPClient } from "@avalanche-sdk/chainkit/lib/http.js";
import { Avalanche } from "@avalanche-sdk/chainkit";
import * as errors from "@avalanche-sdk/chainkit/models/errors";

import { chainRPC, connectChain, FUNDED_KEY, ZERO } from "./lib/chain.js";
import { checkPages, checkUnique, forEach, normalizer, same } from "./lib/compare.js";
import { compileContracts } from "./lib/contracts.js";
import { DataAPI, guardFetch, sdkOptions } from "./lib/dataapi.js";
import { C_CHAIN_TOKEN, Expected, key, selectors } from "./lib/oracle.js";
import { runScenario } from "./lib/scenario.js";
import { collectionTokens, contracts, erc721Balances, nftAtHead, tokenTransfers, v2Transactions } from "./lib/tokens.js";

const NODE_URL = process.env.DATAAPI_NODE_URL;
if (!NODE_URL) {
  throw new Error("DATAAPI_NODE_URL must name the node, like http://127.0.0.1:9650");
}

/** The chain's JSON-RPC. */
const CHAIN_RPC = chainRPC(NODE_URL);

/**
 * An external chain's entry of external-chains (docs/data-api.md,
 * "Indexing a chain of another node"), or null for the node's C-Chain.
 * Members left unset are not checked.
 */
const EXTERNAL = process.env.DATAAPI_CHAIN_NAME
  ? {
      name: process.env.DATAAPI_CHAIN_NAME,
      blockchainId: process.env.DATAAPI_CHAIN_BLOCKCHAIN_ID,
      wsUrl: process.env.DATAAPI_CHAIN_WS,
      symbol: process.env.DATAAPI_CHAIN_SYMBOL || "NATIVE",
    }
  : null;
if (process.env.DATAAPI_CHAIN_RPC && !EXTERNAL) {
  throw new Error("DATAAPI_CHAIN_RPC names an external chain: DATAAPI_CHAIN_NAME must give its name in external-chains");
}

/** How long the data API may take to index the scenario's last block. */
const INDEX_TIMEOUT_MS = 60_000;

/** SDK requests in flight at once. */
const PARALLEL = 4;

/** Page sizes the lists are read with; 100, the largest, reads the scenario's in one page. */
const PAGE_SIZES = [1, 2, 3, 100];

const fetched = guardFetch(NODE_URL, [CHAIN_RPC]);
const api = new DataAPI(NODE_URL);

/** What the tests share, set up once. */
let chain; // lib/chain.js
let run; // what runScenario returned
let want; // lib/oracle.js Expected
let normalize; // lib/compare.js
let chainId; // the EVM chain ID, as the data API spells it
let entry; // the chain's entry of /v1/chains
let names; // lower-case address -> a name for messages
let addresses; // every address the scenario's blocks involve, and one they do not
let windows; // block windows over the scenario's blocks

/** A name for an address in messages. */
const nameOf = (a) => names.get(key(a)) ?? a;

/** Waits until the data API has indexed block n. */
async function waitIndexed(n) {
  const deadline = Date.now() + INDEX_TIMEOUT_MS;
  for (;;) {
    try {
      return await api.block(chainId, String(n));
    } catch (e) {
      if (!(e instanceof errors.NotFoundError)) {
        throw e;
      }
      if (Date.now() > deadline) {
        throw new Error(`block ${n} not indexed within ${INDEX_TIMEOUT_MS} ms: ${e.message}`);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The chain's entry of /v1/chains, which must be there once. */
async function chainEntry() {
  const found = (await api.chains()).chains.filter((c) => c.chainId === chainId);
  assert.equal(found.length, 1, `chain ${chainId} is listed ${found.length} times in /v1/chains`);
  return found[0];
}

before(async () => {
  const contracts = compileContracts();
  chain = await connectChain(CHAIN_RPC, { gasScale: BigInt(process.env.DATAAPI_GAS_SCALE || 1) });
  chainId = String(chain.chainId);
  // A chain without the local network's funded key (go-ethereum --dev)
  // funds it from its dev account.
  const deployer = chain.wallet(FUNDED_KEY).address;
  if (process.env.DATAAPI_FUND_FROM_DEV === "1" || (await chain.client.getBalance({ address: deployer })) === 0n) {
    await chain.fundFromDev(deployer);
  }
  run = await runScenario(chain, contracts);
  await waitIndexed(run.last);
  assert.equal(await chain.client.getBlockNumber(), run.last, "the chain moved on after the scenario: something else uses the node");
  entry = await chainEntry();
  // Nothing on the chain names its native token: an external chain's is
  // its configured symbol, 18 decimals, and the name and description the
  // node gives it.
  const networkToken = EXTERNAL ? { ...entry.networkToken, symbol: EXTERNAL.symbol, decimals: 18 } : C_CHAIN_TOKEN;
  want = await Expected.read(chain, run.last, selectors(contracts), networkToken);
  // Metadata is read after its block is indexed, so after block 1 was made.
  normalize = normalizer({ methods: selectors(contracts), since: Number(want.blocks[0].timestamp) });
  names = new Map([[key(ZERO), "the zero address"]]);
  for (const [name, w] of Object.entries(run.wallets)) {
    names.set(key(w.address), name);
  }
  for (const [name, a] of Object.entries(run.contracts)) {
    names.set(key(a), `the ${name} contract`);
  }
  const stranger = "0x000000000000000000000000000000000000dEaD";
  names.set(key(stranger), "an address without activity");
  addresses = [...[...want.addresses.values()].map((l) => l.address), stranger];
  const { first, last } = run;
  const mid = (first + last) / 2n;
  windows = [
    { startBlock: Number(first), endBlock: Number(first + 5n) },
    { startBlock: Number(mid), endBlock: Number(mid + 1n) },
    { startBlock: Number(mid) },
    { endBlock: Number(mid) },
    { startBlock: Number(last + 1n) },
  ];
});

test("the scenario made something of every kind", () => {
  const all = (list) => addresses.flatMap((a) => want.items(a, list));
  const types = new Set(all("internals").map((x) => `${x.internalTxType}${x.isReverted ? " reverted" : ""}`));
  for (const t of ["CALL", "CALL reverted", "CALLCODE", "CREATE", "CREATE2", "CREATE2 reverted", "CREATE3"]) {
    assert.ok(types.has(t), `no ${t} internal transaction (got ${[...types].join(", ")})`);
  }
  const txTypes = new Set([...want.txs.values()].map((r) => r.tx.typeHex));
  assert.deepEqual([...txTypes].sort(), ["0x0", "0x1", "0x2"]);
  const statuses = new Set([...want.txs.values()].map((r) => r.receipt.status));
  assert.deepEqual([...statuses].sort(), ["reverted", "success"]);
  assert.ok(all("erc721").length > 0 && all("erc1155").length > 0 && all("deployments").length > 0);
  assert.ok(want.blocks.some((b) => b.transactions.length === 0), "no empty block");
  assert.ok(want.blocks.some((b) => b.transactions.length > 2), "no block of several transactions");
  const statuses721 = new Set(all("erc721").map((x) => x.erc721Token.metadata.indexStatus));
  const statuses1155 = new Set(all("erc1155").map((x) => x.erc1155Token.metadata.indexStatus));
  assert.deepEqual([...statuses721].sort(), ["INDEXED", "INVALID_TOKEN_URI", "INVALID_TOKEN_URI_SCHEME", "UNINDEXED"]);
  assert.deepEqual([...statuses1155].sort(), ["INDEXED", "INVALID_METADATA", "INVALID_METADATA_JSON", "UNINDEXED"]);
});

/**
 * Reads a list of address with request at every page size and checks
 * that the pages are well formed and add up to the oracle's items.
 */
async function checkList(list, member, address, request, wantItems, sizes = PAGE_SIZES) {
  for (const pageSize of sizes) {
    const what = `${list} of ${nameOf(address)} ${JSON.stringify({ ...request, pageSize })}`;
    const { pages, items } = await api.pages(list, { chainId, address, pageSize, ...request });
    checkPages(pages, member, pageSize, what);
    checkUnique(items, what);
    same(normalize(items), wantItems, what);
  }
}

describe("1. transactions of an address", () => {
  test("every address: the whole list in both orders, at every page size", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      const asc = want.items(a, "txs");
      await checkList("transactions", "transactions", a, { sortOrder: "asc" }, asc);
      await checkList("transactions", "transactions", a, { sortOrder: "desc" }, asc.toReversed());
      await checkList("transactions", "transactions", a, {}, asc.toReversed(), [3]); // desc by default
    });
  });

  test("block windows: startBlock inclusive, endBlock exclusive", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      for (const w of windows) {
        const asc = want.items(a, "txs", { start: w.startBlock, end: w.endBlock });
        await checkList("transactions", "transactions", a, { ...w, sortOrder: "asc" }, asc, [2, 100]);
        await checkList("transactions", "transactions", a, { ...w, sortOrder: "desc" }, asc.toReversed(), [2]);
      }
    });
  });
});

// The SDK sends no sortOrder on these lists: they are read newest first,
// the data API's default.
for (const [n, list, name] of [
  [2, "erc721", "ERC-721 transfers"],
  [3, "erc1155", "ERC-1155 transfers"],
  [4, "internals", "internal transactions"],
  [24, "native", "native transactions"],
  [25, "erc20", "ERC-20 transfers"],
]) {
  describe(`${n}. ${name} of an address`, () => {
    test("every address: the whole list at every page size, and in block windows", async () => {
      await forEach(addresses, PARALLEL, async (a) => {
        await checkList(list, "transactions", a, {}, want.items(a, list).toReversed());
        for (const w of windows) {
          await checkList(list, "transactions", a, w, want.items(a, list, { start: w.startBlock, end: w.endBlock }).toReversed(), [2]);
        }
      });
    });
  });
}

describe("5, 6. ERC-20 and ERC-1155 balances", () => {
  /** The addresses that hold or held tokens, and one that never did. */
  const holders = () => addresses.filter((a) => key(a) !== key(ZERO));
  /** Every block of the scenario, and the one before it. */
  const blocks = () => Array.from({ length: Number(run.last - run.first) + 2 }, (_, i) => run.first - 1n + BigInt(i));

  test("at every block of the scenario, as balanceOf and eth_getBalance answer there", async () => {
    const cases = holders().flatMap((h) => blocks().map((b) => [h, b]));
    await forEach(cases, PARALLEL, async ([h, b]) => {
      const request = { chainId, address: h, blockNumber: String(b), pageSize: 500 };
      const what = (list) => `${list} of ${nameOf(h)} at block ${b}`;
      const [erc20, erc1155] = await Promise.all([api.pages("erc20Balances", request), api.pages("erc1155Balances", request)]);
      const [want20, want1155] = await Promise.all([want.erc20Balances(h, b), want.erc1155Balances(h, b)]);
      same(normalize(erc20.pages), [want20], what("balances:listErc20"));
      same(normalize(erc1155.pages), [want1155], what("balances:listErc1155"));
    });
  });

  test("now, at every page size, and filtered by contract", async () => {
    await forEach(holders(), PARALLEL, async (h) => {
      const want20 = await want.erc20Balances(h, run.last);
      const want1155 = await want.erc1155Balances(h, run.last);
      for (const pageSize of [1, 2, 500]) {
        for (const [list, member, w] of [
          ["erc20Balances", "erc20TokenBalances", want20],
          ["erc1155Balances", "erc1155TokenBalances", want1155],
        ]) {
          const what = `${list} of ${nameOf(h)} now, pageSize ${pageSize}`;
          const { pages, items } = await api.pages(list, { chainId, address: h, pageSize });
          checkPages(pages, member, pageSize, what);
          const { [member]: wantItems, ...rest } = w;
          for (const p of pages) {
            const { [member]: _, nextPageToken, ...pageRest } = p;
            same(normalize(pageRest), rest, `${what}: the native balance of a page`);
          }
          same(normalize(items), wantItems, what);
        }
      }
      const { token, multi } = run.contracts;
      const only20 = await api.pages("erc20Balances", { chainId, address: h, contractAddresses: token });
      same(normalize(only20.pages), [await want.erc20Balances(h, run.last, [token])], `listErc20 of ${nameOf(h)} for ${token}`);
      const only1155 = await api.pages("erc1155Balances", { chainId, address: h, contractAddress: multi });
      same(normalize(only1155.pages), [await want.erc1155Balances(h, run.last, multi)], `listErc1155 of ${nameOf(h)} for ${multi}`);
    });
  });
});

describe("7. collectibles", () => {
  test("every address: what it owns now, at every page size, and filtered by contract", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      const all = await want.collectibles(a);
      await checkList("collectibles", "collectibleBalances", a, {}, all, [1, 2, 500]);
      for (const c of [run.contracts.nft, run.contracts.multi]) {
        await checkList("collectibles", "collectibleBalances", a, { contractAddress: c }, await want.collectibles(a, c), [500]);
      }
    });
  });
});

describe("8. deployments", () => {
  test("every address: the contracts it deployed, directly or as a factory, oldest first", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      await checkList("deployments", "contracts", a, {}, want.items(a, "deployments"), [1, 2, 100]);
    });
  });
});

describe("9. one transaction", () => {
  test("every transaction of the chain, complete", async () => {
    await forEach([...want.txs.keys()], PARALLEL, async (hash) => {
      same(normalize(await api.transaction(chainId, hash)), want.transaction(hash), `transaction ${hash}`);
    });
  });
});

describe("10. chains", () => {
  /** The C-Chain as the node describes it. */
  async function cChain() {
    const info = (method, params = {}) =>
      fetch(`${NODE_URL}/ext/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }).then(async (r) => (await r.json()).result);
    const [{ blockchainID }, { vms }] = await Promise.all([info("info.getBlockchainID", { alias: "C" }), info("info.getVMs")]);
    const vmId = Object.keys(vms).find((id) => vms[id].includes("evm"));
    const url = new URL(NODE_URL);
    return {
      chainId,
      status: "OK",
      chainName: "C-Chain",
      description: `EVM chain C-Chain (EVM chain ID ${chainId}) indexed by this chainhost node.`,
      platformChainId: blockchainID,
      vmId,
      vmName: "EVM",
      rpcUrl: `${url.origin}/ext/bc/C/rpc`,
      wsUrl: `ws://${url.host}/ext/bc/C/ws`,
      isTestnet: true,
      networkToken: want.networkToken,
      private: false,
      enabledFeatures: [],
    };
  }

  /**
   * The external chain as its external-chains entry configures it; what
   * the entry does not set (description, VM name, isTestnet, the token's
   * name and description) as the node answers it. An external chain has
   * no VM ID: the node does not know it.
   */
  function externalChain() {
    const { description, vmName, isTestnet, networkToken } = entry;
    return {
      chainId,
      status: "OK",
      chainName: EXTERNAL.name,
      description,
      platformChainId: EXTERNAL.blockchainId ?? entry.platformChainId,
      vmName,
      rpcUrl: CHAIN_RPC,
      wsUrl: EXTERNAL.wsUrl ?? entry.wsUrl,
      isTestnet,
      networkToken: { ...networkToken, symbol: EXTERNAL.symbol, decimals: 18 },
      private: false,
      enabledFeatures: [],
    };
  }

  test("an external chain, as its config describes it, listed by the network it is on", { skip: !EXTERNAL }, async () => {
    const c = externalChain();
    same(await chainEntry(), c, "the chain's entry of chains");
    const viaRPC = await connectChain(c.rpcUrl);
    assert.equal(String(viaRPC.chainId), chainId, "the rpcUrl answers another chain ID");
    for (const [network, listed] of [
      ["mainnet", !c.isTestnet],
      ["fuji", c.isTestnet],
      ["testnet", c.isTestnet],
    ]) {
      const ours = (await api.chains({ network })).chains.filter((x) => x.chainId === chainId);
      same(ours, listed ? [c] : [], `chain ${chainId} among the chains of network ${network}`);
    }
  });

  test("the node's EVM chain, as info and its own RPC describe it", { skip: !!EXTERNAL }, async () => {
    const c = await cChain();
    same((await api.chains()).chains, [c], "chains");
    const viaRPC = await connectChain(c.rpcUrl);
    assert.equal(String(viaRPC.chainId), chainId, "the rpcUrl answers another chain ID");
    // The local network answers to fuji and testnet (docs/data-api.md).
    for (const network of ["fuji", "testnet"]) {
      same((await api.chains({ network })).chains, [c], `chains of network ${network}`);
    }
    same((await api.chains({ network: "mainnet" })).chains, [], "chains of mainnet");
    same((await api.chains({ feature: "nftIndexing" })).chains, [], "chains with nftIndexing");
  });
});

describe("11. one block", () => {
  test("every block, by number and by hash", async () => {
    const numbers = Array.from({ length: Number(run.last) }, (_, i) => BigInt(i + 1));
    await forEach(numbers, PARALLEL, async (n) => {
      const b = want.block(n);
      same(await api.block(chainId, String(n)), b, `block ${n}`);
      same(await api.block(chainId, b.blockHash), b, `block ${b.blockHash}`);
    });
  });
});

describe("12. chains of an address", () => {
  test("every address that took part in a transaction", async () => {
    const c = await chainEntry();
    await forEach(addresses, PARALLEL, async (a) => {
      const took = want.items(a, "txs").length > 0;
      same(await api.addressChains(a), { indexedChains: took ? [c] : [], unindexedChains: [] }, `chains of ${nameOf(a)}`);
    });
  });
});

describe("14. one chain", () => {
  test("by its EVM chain ID and by its blockchain ID, as /v1/chains lists it", async () => {
    const c = await chainEntry();
    same(await api.chain(chainId), c, `chain ${chainId}`);
    same(await api.chain(c.platformChainId), c, `chain ${c.platformChainId}`);
  });
});

describe("15. latest blocks", () => {
  test("every block, newest first, at every page size, as the chain has it", async () => {
    const numbers = Array.from({ length: Number(run.last) + 1 }, (_, i) => run.last - BigInt(i));
    const wantBlocks = numbers.map((n) => want.block(n));
    for (const pageSize of PAGE_SIZES) {
      const what = `blocks of chain ${chainId} ${JSON.stringify({ pageSize })}`;
      const { pages, items } = await api.pages("blocks", { chainId, pageSize });
      checkPages(pages, "blocks", pageSize, what);
      same(items, wantBlocks, what);
    }
    const { platformChainId } = await chainEntry();
    const { items } = await api.pages("blocks", { chainId: platformChainId, pageSize: 4 });
    same(items, wantBlocks, `blocks of chain ${platformChainId}`);
  });
});

describe("16, 23. latest blocks of all chains", () => {
  test("the node's one EVM chain: its every block, newest first, at every page size and network", async () => {
    const numbers = Array.from({ length: Number(run.last) + 1 }, (_, i) => run.last - BigInt(i));
    const wantBlocks = numbers.map((n) => want.block(n));
    const { isTestnet } = await chainEntry();
    for (const [network, listed] of [
      [undefined, true],
      ["mainnet", !isTestnet],
      ["fuji", isTestnet],
      ["testnet", isTestnet],
    ]) {
      for (const list of ["allBlocks", "latestBlocksAllChains"]) {
        for (const pageSize of PAGE_SIZES) {
          const what = `${list} ${JSON.stringify({ network, pageSize })}`;
          const { pages, items } = await api.pages(list, { network, pageSize });
          checkPages(pages, "blocks", pageSize, what);
          same(items, listed ? wantBlocks : [], what);
        }
      }
    }
  });
});

describe("19. latest transactions of a chain", () => {
  test("every transaction, newest first, of each status, at every page size", async () => {
    for (const status of [undefined, "success", "failed"]) {
      const wantTxs = want.chainTxs(status);
      assert.ok(wantTxs.length > 0, `no ${status ?? ""} transaction in the scenario`);
      for (const pageSize of PAGE_SIZES) {
        const what = `transactions of chain ${chainId} ${JSON.stringify({ status, pageSize })}`;
        const { pages, items } = await api.pages("chainTransactions", { chainId, status, pageSize });
        checkPages(pages, "transactions", pageSize, what);
        same(normalize(items), wantTxs, what);
      }
    }
    const { platformChainId } = await chainEntry();
    const { items } = await api.pages("chainTransactions", { chainId: platformChainId, pageSize: 7 });
    same(normalize(items), want.chainTxs(), `transactions of chain ${platformChainId}`);
  });
});

describe("20. transactions of a block", () => {
  test("every block, by number and by hash: whole, and page by page", async () => {
    const numbers = Array.from({ length: Number(run.last) + 1 }, (_, i) => BigInt(i));
    await forEach(numbers, PARALLEL, async (n) => {
      const wantTxs = want.blockTxs(n);
      const { blockHash } = want.block(n);
      for (const id of [String(n), blockHash]) {
        same(normalize(await api.blockTransactions(chainId, id)), { transactions: wantTxs }, `transactions of block ${id}`);
      }
      // The SDK reads the list as one answer: the pages are followed here.
      for (const pageSize of [1, 2]) {
        const what = `transactions of block ${n} ${JSON.stringify({ pageSize })}`;
        const pages = [];
        let pageToken;
        do {
          const page = await api.blockTransactions(chainId, blockHash, { pageSize, pageToken });
          pages.push(page);
          pageToken = page.nextPageToken;
        } while (pageToken);
        checkPages(pages, "transactions", pageSize, what);
        same(normalize(pages.flatMap((p) => p.transactions)), wantTxs, what);
      }
    });
  });
});

describe("21, 22. latest transactions of all chains", () => {
  test("the node's one EVM chain: its every transaction, newest first, at every page size, network and status", async () => {
    const { isTestnet } = await chainEntry();
    const cases = [
      [undefined, undefined, true],
      ["mainnet", undefined, !isTestnet],
      ["fuji", undefined, isTestnet],
      ["testnet", "success", isTestnet],
      [undefined, "success", true],
      [undefined, "failed", true],
    ];
    for (const list of ["allTransactions", "latestTransactionsAllChains"]) {
      for (const [i, [network, status, listed]] of cases.entries()) {
        // Every page size on the whole list; the filters at two.
        for (const pageSize of i === 0 ? PAGE_SIZES : [2, 100]) {
          const what = `${list} ${JSON.stringify({ network, status, pageSize })}`;
          const { pages, items } = await api.pages(list, { network, status, pageSize });
          checkPages(pages, "transactions", pageSize, what);
          same(normalize(items), listed ? want.chainTxs(status) : [], what);
        }
      }
    }
  });
});

describe("26. native balance", () => {
  test("every address, before, amid and after the scenario, and now, as eth_getBalance answers", async () => {
    const blocks = [run.first - 1n, (run.first + run.last) / 2n, run.last];
    const cases = addresses.flatMap((a) => blocks.map((b) => [a, b]));
    await forEach(cases, PARALLEL, async ([a, b]) => {
      const got = await api.nativeBalance({ chainId, address: a, blockNumber: String(b) });
      same(got, { nativeTokenBalance: await want.nativeBalance(a, b) }, `native balance of ${nameOf(a)} at block ${b}`);
    });
    await forEach(addresses, PARALLEL, async (a) => {
      const now = { nativeTokenBalance: await want.nativeBalance(a, run.last) };
      same(await api.nativeBalance({ chainId, address: a }), now, `native balance of ${nameOf(a)} now`);
      same(await api.nativeBalance({ chainId, address: a, currency: "eur" }), now, `native balance of ${nameOf(a)} in eur`);
    });
  });
});

describe("17, 18. health and live checks", () => {
  test("ok, the store up", async () => {
    const want = { status: "ok", info: { store: { status: "up" } }, error: {}, details: { store: { status: "up" } } };
    same(await api.sdk.data.healthCheck(api.call), want, "/v1/health-check");
    same(await api.sdk.data.liveCheck(api.call), want, "/v1/live-check");
  });
});

describe("19, 20. a contract's metadata and deployment transaction", () => {
  test("every contract the scenario created, as endpoint 8 lists it, and its creating transaction; an account is 404", async () => {
    const made = contracts(want);
    assert.ok(made.size > 5, `only ${made.size} contracts created`);
    await forEach([...made.values()], PARALLEL, async (c) => {
      same(normalize(await api.contractMetadata(chainId, c.address)), c, `metadata of ${nameOf(c.address)}`);
      same(normalize(await api.deployment(chainId, c.address)), want.transaction(c.deploymentDetails.txHash), `deployment of ${nameOf(c.address)}`);
    });
    const kinds = new Set([...made.values()].map((c) => c.ercType));
    assert.deepEqual([...kinds].sort(), ["ERC-1155", "ERC-20", "ERC-721", "UNKNOWN"]);
    const account = run.wallets.alice.address;
    await assert.rejects(api.contractMetadata(chainId, account), errors.NotFoundError);
    await assert.rejects(api.deployment(chainId, account), errors.NotFoundError);
  });
});

describe("21. a token's transfers", () => {
  test("every token: the whole list, newest first, at every page size, and in block windows", async () => {
    const tokens = [...want.tokens.values()].map((t) => t.address);
    assert.ok(["ERC-20", "ERC-721", "ERC-1155"].every((k) => [...want.tokens.values()].some((t) => t.kind === k)));
    await forEach([...tokens, run.wallets.alice.address], PARALLEL, async (t) => {
      await checkList("tokenTransfers", "transfers", t, {}, tokenTransfers(want, t));
      for (const w of windows) {
        await checkList("tokenTransfers", "transfers", t, w, tokenTransfers(want, t, { start: w.startBlock, end: w.endBlock }), [2]);
      }
    });
  });
});

describe("22, 23, 24. NFT collections, their tokens and reindexing", () => {
  const collections = () => [run.contracts.nft, run.contracts.multi];

  test("each collection's tokens by ID at every page size, and each token alone, with its metadata", async () => {
    for (const c of collections()) {
      const all = collectionTokens(want, c);
      assert.ok(all.length > 2, `collection ${nameOf(c)} has ${all.length} tokens`);
      await checkList("nftTokens", "tokens", c, {}, all, [1, 2, 100]);
      await forEach(all, PARALLEL, async (t) => {
        same(normalize(await api.nft(chainId, c, t.tokenId)), t, `token ${t.tokenId} of ${nameOf(c)}`);
      });
    }
    // A token whose tokenURI is a data: URI shows the document it holds.
    const inline = collectionTokens(want, run.contracts.nft).filter((t) => t.tokenUri.startsWith("data:"));
    assert.ok(inline.length > 0 && inline.every((t) => t.metadata.indexStatus === "INDEXED" && t.metadata.name), "no data: URI token with its metadata");
    await checkList("nftTokens", "tokens", run.wallets.alice.address, {}, [], [10]);
  });

  test("reindex: 201, then the token as the chain says; unknown tokens are 404", async () => {
    for (const c of collections()) {
      for (const t of collectionTokens(want, c)) {
        assert.equal(await api.reindex(chainId, c, t.tokenId), undefined);
      }
    }
    // The refetches run in the background, reading each token's URI at
    // the head: every token comes to read as the chain says there (a
    // burnt one MISSING_TOKEN), and a token with a data: URI shows a later
    // metadataLastUpdatedTimestamp (asked again until the clock's second
    // has moved).
    const deadline = Date.now() + INDEX_TIMEOUT_MS;
    const until = async (what, done, again = async () => {}) => {
      while (!(await done())) {
        assert.ok(Date.now() < deadline, `${what} within ${INDEX_TIMEOUT_MS} ms of the reindex`);
        await again();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    let missing = 0;
    for (const c of collections()) {
      for (const t of collectionTokens(want, c)) {
        const w = await nftAtHead(want, c, t.tokenId);
        missing += w.metadata.indexStatus === "MISSING_TOKEN" ? 1 : 0;
        const what = `token ${t.tokenId} of ${nameOf(c)} after reindex`;
        await until(what, async () => {
          try {
            same(normalize(await api.nft(chainId, c, t.tokenId)), w, what);
            return true;
          } catch {
            return false;
          }
        });
      }
    }
    assert.ok(missing > 0, "no token burnt by the head: the reindex shows nothing the first read did not");
    const [t] = collectionTokens(want, run.contracts.nft).filter((x) => x.tokenUri.startsWith("data:"));
    const before = (await api.nft(chainId, run.contracts.nft, t.tokenId)).metadata.metadataLastUpdatedTimestamp;
    await until(
      `token ${t.tokenId} read again`,
      async () => (await api.nft(chainId, run.contracts.nft, t.tokenId)).metadata.metadataLastUpdatedTimestamp > before,
      () => api.reindex(chainId, run.contracts.nft, t.tokenId),
    );
    await assert.rejects(api.nft(chainId, run.contracts.nft, "999999"), errors.NotFoundError);
    await assert.rejects(api.reindex(chainId, run.contracts.nft, "999999"), errors.NotFoundError);
  });
});

describe("25. ERC-721 balances", () => {
  test("every address: what it owns now, at every page size, and filtered by collection", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      const w = await erc721Balances(want, a);
      for (const pageSize of [1, 2, 500]) {
        const what = `erc721Balances of ${nameOf(a)}, pageSize ${pageSize}`;
        const { pages, items } = await api.pages("erc721Balances", { chainId, address: a, pageSize });
        checkPages(pages, "erc721TokenBalances", pageSize, what);
        for (const p of pages) {
          same(normalize(p.nativeTokenBalance), w.nativeTokenBalance, `${what}: the native balance of a page`);
        }
        same(normalize(items), w.erc721TokenBalances, what);
      }
      const only = await api.pages("erc721Balances", { chainId, address: a, contractAddress: run.contracts.nft, pageSize: 500 });
      same(normalize(only.items), (await erc721Balances(want, a, run.contracts.nft)).erc721TokenBalances, `erc721Balances of ${nameOf(a)} for the collection`);
    });
  });
});

describe("26. chains of an address, by getAddressChains", () => {
  test("every address: as endpoint 12", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      same(await api.addressChainsByChains(a), await api.addressChains(a), `getAddressChains of ${nameOf(a)}`);
    });
  });
});

describe("27. transactions of an address, v2", () => {
  /** Reads the v2 list to its end (the SDK has no method for it): the pages. */
  async function v2Pages(address, query) {
    const pages = [];
    let token;
    do {
      const q = new URLSearchParams({ ...query, ...(token ? { pageToken: token } : {}) });
      const res = await fetch(`${NODE_URL}/v2/chains/${chainId}/addresses/${address}/transactions?${q}`);
      assert.equal(res.status, 200, `v2 transactions of ${nameOf(address)}: ${res.status} ${await res.clone().text()}`);
      const page = await res.json();
      pages.push(page);
      token = page.nextPageToken;
    } while (token);
    return pages;
  }

  test("every address: endpoint 1's list with tokenReputation, in both orders, at every page size", async () => {
    await forEach(addresses, PARALLEL, async (a) => {
      const asc = v2Transactions(want.items(a, "txs"));
      for (const [order, items] of [
        ["asc", asc],
        ["desc", asc.toReversed()],
      ]) {
        for (const pageSize of [1, 3, 100]) {
          const what = `v2 transactions of ${nameOf(a)} ${order} ${pageSize}`;
          const pages = await v2Pages(a, { sortOrder: order, pageSize: String(pageSize) });
          checkPages(pages, "transactions", pageSize, what);
          same(normalize(pages.flatMap((p) => p.transactions)), items, what);
        }
      }
    });
  });
});

describe("the chain named by its blockchain ID", () => {
  test("answers as by its EVM chain ID", async () => {
    const { platformChainId } = await chainEntry();
    same(await api.block(platformChainId, "1"), want.block(1n), `block 1 of chain ${platformChainId}`);
    const { deployer } = run.wallets;
    const { items } = await api.pages("transactions", { chainId: platformChainId, address: deployer.address, sortOrder: "asc", pageSize: 7 });
    same(normalize(items), want.items(deployer.address, "txs"), `transactions of the deployer on chain ${platformChainId}`);
  });
});

describe("errors as the SDK's typed errors", () => {
  /** Calls fn, which must fail with the SDK error class for status. */
  async function wantError(fn, Class, status, messagePart) {
    const e = await fn().then(
      (v) => assert.fail(`answered ${JSON.stringify(v)}, want ${status}`),
      (e) => e,
    );
    assert.ok(e instanceof Class, `${e.constructor.name} (${e.message}), want ${Class.name}`);
    assert.equal(e.statusCode, status);
    const body = JSON.parse(e.body);
    assert.deepEqual(Object.keys(body).sort(), ["error", "message", "statusCode"], `REST body ${e.body}`);
    assert.equal(body.statusCode, status);
    assert.equal(e.data$.statusCode, status);
    assert.equal(e.data$.error, body.error);
    assert.equal(e.data$.message, body.message);
    assert.match(String(body.message), messagePart);
    return body;
  }
  const wallet = () => run.wallets.deployer.address;

  test("400: a bad address, page size, block range, page token, block number, hash", async () => {
    const list = (request) => api.pages("transactions", { chainId, address: wallet(), ...request });
    const body = await wantError(() => list({ address: "0x12" }), errors.BadRequestError, 400, /^address: /);
    assert.equal(body.error, "Bad Request");
    await wantError(() => list({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ pageSize: 101 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ startBlock: 5, endBlock: 5 }), errors.BadRequestError, 400, /^endBlock: /);
    await wantError(() => list({ pageToken: "forged" }), errors.BadRequestError, 400, /^pageToken: /);
    await wantError(
      () => api.pages("erc20Balances", { chainId, address: wallet(), blockNumber: "latest" }),
      errors.BadRequestError,
      400,
      /^blockNumber: /,
    );
    await wantError(() => api.transaction(chainId, "0x1234"), errors.BadRequestError, 400, /^txHash: /);
    const blocks = (request) => api.pages("blocks", { chainId, ...request });
    await wantError(() => blocks({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => blocks({ pageSize: 101 }), errors.BadRequestError, 400, /^pageSize: /);
    const [{ nextPageToken }] = (await list({ pageSize: 1 })).pages;
    await wantError(() => blocks({ pageToken: nextPageToken }), errors.BadRequestError, 400, /^pageToken: /);
    const allBlocks = (request) => api.pages("allBlocks", request);
    await wantError(() => allBlocks({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => allBlocks({ pageSize: 101 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => allBlocks({ pageToken: nextPageToken }), errors.BadRequestError, 400, /^pageToken: /);
    for (const [name, request] of [
      ["chainTransactions", { chainId }],
      ["allTransactions", {}],
      ["latestTransactionsAllChains", {}],
      ["latestBlocksAllChains", {}],
      ["native", { chainId, address: wallet() }],
      ["erc20", { chainId, address: wallet() }],
    ]) {
      const read = (r) => api.pages(name, { ...request, ...r });
      await wantError(() => read({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
      await wantError(() => read({ pageSize: 101 }), errors.BadRequestError, 400, /^pageSize: /);
      await wantError(() => read({ pageToken: nextPageToken }), errors.BadRequestError, 400, /^pageToken: /);
    }
    await wantError(() => api.pages("native", { chainId, address: "0x12" }), errors.BadRequestError, 400, /^address: /);
    await wantError(() => api.pages("erc20", { chainId, address: wallet(), startBlock: 5, endBlock: 5 }), errors.BadRequestError, 400, /^endBlock: /);
    // A token of the success list is not one of the whole list's.
    const [{ nextPageToken: successToken }] = (await api.pages("chainTransactions", { chainId, status: "success", pageSize: 1 })).pages;
    await wantError(() => api.pages("chainTransactions", { chainId, pageToken: successToken }), errors.BadRequestError, 400, /^pageToken: /);
    await wantError(() => api.blockTransactions(chainId, "latest"), errors.BadRequestError, 400, /^blockId: /);
    await wantError(() => api.blockTransactions(chainId, "1", { pageSize: 101 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => api.blockTransactions(chainId, "1", { pageToken: nextPageToken }), errors.BadRequestError, 400, /^pageToken: /);
    await wantError(() => api.nativeBalance({ chainId, address: "0x12" }), errors.BadRequestError, 400, /^address: /);
    await wantError(() => api.nativeBalance({ chainId, address: wallet(), blockNumber: "latest" }), errors.BadRequestError, 400, /^blockNumber: /);
  });

  test("404: an unknown transaction, block and chain", async () => {
    const unknown = `0x${"ab".repeat(32)}`;
    await wantError(() => api.transaction(chainId, unknown), errors.NotFoundError, 404, /not found/);
    await wantError(() => api.block(chainId, String(run.last + 1000n)), errors.NotFoundError, 404, /not found/);
    await wantError(() => api.block(chainId, unknown), errors.NotFoundError, 404, /not found/);
    await wantError(() => api.block("1", "1"), errors.NotFoundError, 404, /^chain "1" not found/);
    await wantError(() => api.chain("1"), errors.NotFoundError, 404, /^chain "1" not found/);
    await wantError(() => api.pages("blocks", { chainId: "1" }), errors.NotFoundError, 404, /^chain "1" not found/);
    await wantError(() => api.pages("chainTransactions", { chainId: "1" }), errors.NotFoundError, 404, /^chain "1" not found/);
    await wantError(() => api.blockTransactions(chainId, String(run.last + 1000n)), errors.NotFoundError, 404, /not found/);
    await wantError(() => api.blockTransactions(chainId, unknown), errors.NotFoundError, 404, /not found/);
    await wantError(() => api.nativeBalance({ chainId: "1", address: run.wallets.deployer.address }), errors.NotFoundError, 404, /^chain "1" not found/);
    const future = String(run.last + 1000n);
    await wantError(() => api.nativeBalance({ chainId, address: run.wallets.deployer.address, blockNumber: future }), errors.NotFoundError, 404, /not available/);
  });
});

describe("the SDK as the suite uses it", () => {
  test("validates answers: a copy of a real one with a wrong type is refused", async () => {
    const [hash] = want.txs.keys();
    const fetcher = async (request) => {
      const res = await fetch(request);
      const body = await res.json();
      body.nativeTransaction.blockIndex = String(body.nativeTransaction.blockIndex);
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    const corrupted = new DataAPI(NODE_URL, new Avalanche(sdkOptions({ httpClient: new HTTPClient({ fetcher }) })));
    await assert.rejects(corrupted.transaction(chainId, hash), errors.ResponseValidationError);
    await assert.doesNotReject(api.transaction(chainId, hash));
  });

  test("sent nothing anywhere but the node (telemetry off, serverURL on every call)", (t) => {
    assert.deepEqual(fetched.refused, []);
    t.diagnostic(`${fetched.dataRequests} data API requests`);
  });
});
