// A newcomer's first script against the data and metrics APIs of the local
// network (`make run`), written from docs/data-api.md and docs/metrics-api.md
// with the official SDK as shipped: response validation on, retries off,
// every call at full speed, one after the other. It sends five transfers
// on the C-Chain, waits until the data API has indexed them, then reads
// them back every way the docs show, pages through lists, and reads the
// throughput and the P-Chain's staking and fee series: more than a
// hundred requests in a few seconds, over fifty to each module, so that
// any rate limit a single user reaches on the default config fails it.
//
// Run by TestNewcomer (tests/firsthour) against a node on the embedded
// default config; against a node of your own:
//   NODE_URL=http://127.0.0.1:9650 node newcomer.mjs
import assert from "node:assert/strict";

import { Avalanche } from "@avalanche-sdk/chainkit";
import { HTTPClient } from "@avalanche-sdk/chainkit/lib/http.js";
import * as errors from "@avalanche-sdk/chainkit/models/errors";
import { createPublicClient, createWalletClient, defineChain, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const NODE = process.env.NODE_URL ?? "http://127.0.0.1:9650";

// The well-known local key and its address (README, "The C-Chain").
const KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
const FUNDED = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC";
const CHAIN_ID = "43112";

/** The genesis validators of the local P-Chain: five of 2,000,000 AVAX (configs/default.yaml, as on avalanchego's local network), in nAVAX. */
const VALIDATORS = 5;
const VALIDATOR_WEIGHT = 5 * 2_000_000 * 1e9;
const PRIMARY_NETWORK = "11111111111111111111111111111111LpoYY";

/** How long the modules may take to index what the script sent. */
const INDEX_TIMEOUT_MS = 60_000;

/**
 * The fewest requests to each module that make the run prove something
 * about rate limits: more than the built-in limit's burst of 40 and what
 * it refills while the script runs.
 */
const AT_LEAST = 50;

const HOUR = 3600;
const DAY = 86_400;

// The SDK's data and metrics methods take the server from each call, not
// from the client's options (without it they go to the hosted APIs).
const on = { serverURL: NODE };

/** Requests sent to each module: the metrics API's paths, the data API's. */
const requests = { metrics: 0, data: 0 };
const count = (url) => requests[/^\/(v2|v1\/avg_tps)\//.test(new URL(url).pathname) ? "metrics" : "data"]++;
const httpClient = new HTTPClient();
httpClient.addHook("beforeRequest", (request) => {
  count(request.url);
  return request;
});
const avalanche = new Avalanche({ httpClient, enableTelemetry: false, retryConfig: { strategy: "none" } });

/** Polls check until it returns a value, for at most INDEX_TIMEOUT_MS. */
async function until(what, check) {
  const deadline = Date.now() + INDEX_TIMEOUT_MS;
  for (;;) {
    const got = await check();
    if (got !== undefined) {
      return got;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${INDEX_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every page of a list the SDK pages through, the items of member. */
async function all(list, member) {
  const items = [];
  for await (const page of list) {
    items.push(...page.result[member]);
  }
  return items;
}

/** GET /v1/avg_tps/{chainId}: the SDK has no method for the v1 route, so fetch it. */
async function avgTPS(chainId) {
  const url = `${NODE}/v1/avg_tps/${chainId}`;
  count(url);
  const res = await fetch(url);
  assert.equal(res.status, 200, `avg_tps of ${chainId}: ${await res.clone().text()}`);
  const body = await res.json();
  assert.equal(body.status, 200);
  for (const [i, point] of body.results.entries()) {
    assert.equal(point.timestamp % DAY, 0, `avg_tps of ${chainId}: a point is a UTC day`);
    assert.ok(point.value >= 0);
    if (i > 0) {
      assert.equal(point.timestamp, body.results[i - 1].timestamp - DAY, `avg_tps of ${chainId}: every day, newest first`);
    }
  }
  return body;
}

async function main() {
  // The chains: the C-Chain is there, with the RPC URL to send to.
  const { chains } = await avalanche.data.evm.chains.list({}, on);
  const c = chains.find((x) => x.chainId === CHAIN_ID);
  assert.ok(c, `chain ${CHAIN_ID} in /v1/chains: ${JSON.stringify(chains)}`);
  assert.equal(c.chainName, "C-Chain");
  assert.equal(c.rpcUrl, `${NODE}/ext/bc/C/rpc`);
  assert.equal(c.isTestnet, true);
  assert.equal(c.networkToken.symbol, "AVAX");

  // Transfers of 0.5 AVAX from the funded key to five new addresses, one
  // after the other, over the RPC URL the data API gave.
  const chain = defineChain({
    id: Number(CHAIN_ID),
    name: c.chainName,
    nativeCurrency: { name: c.networkToken.name, symbol: c.networkToken.symbol, decimals: c.networkToken.decimals },
    rpcUrls: { default: { http: [c.rpcUrl] } },
  });
  const transport = http(c.rpcUrl, { retryCount: 0 });
  const rpc = createPublicClient({ chain, transport, pollingInterval: 50 });
  const wallet = createWalletClient({ chain, transport, account: privateKeyToAccount(KEY) });
  const amount = parseEther("0.5");
  const transfers = [];
  for (let i = 0; i < 5; i++) {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const hash = await wallet.sendTransaction({ to, value: amount });
    const receipt = await rpc.waitForTransactionReceipt({ hash, timeout: INDEX_TIMEOUT_MS });
    assert.equal(receipt.status, "success");
    transfers.push({ to, hash, receipt });
  }
  const last = transfers.at(-1).receipt.blockNumber;

  // The data API has indexed them once it serves the last one's block.
  await until(`block ${last} indexed`, async () => {
    try {
      return await avalanche.data.evm.blocks.get({ chainId: CHAIN_ID, blockId: String(last) }, on);
    } catch (e) {
      if (e instanceof errors.NotFoundError) {
        return undefined;
      }
      throw e;
    }
  });

  // Each transfer: the transaction, its block, and the recipient's
  // transactions, chains and balances.
  for (const { to, hash, receipt } of transfers) {
    const { nativeTransaction: tx } = await avalanche.data.evm.transactions.get({ chainId: CHAIN_ID, txHash: hash }, on);
    assert.equal(tx.txHash, hash);
    assert.equal(tx.from.address, FUNDED);
    assert.equal(tx.to.address, to);
    assert.equal(tx.value, String(amount));
    assert.equal(tx.txStatus, "1");
    assert.equal(tx.method.callType, "NATIVE_TRANSFER");
    assert.equal(tx.blockNumber, String(receipt.blockNumber));

    const block = await avalanche.data.evm.blocks.get({ chainId: CHAIN_ID, blockId: receipt.blockHash }, on);
    assert.equal(block.blockNumber, String(receipt.blockNumber));
    assert.ok(block.txCount >= 1);

    const received = await all(
      await avalanche.data.evm.address.transactions.list({ chainId: CHAIN_ID, address: to }, on),
      "transactions",
    );
    assert.deepEqual(received.map((t) => t.nativeTransaction.txHash), [hash], `transactions of ${to}`);
    const { indexedChains } = await avalanche.data.evm.address.chains.list({ address: to }, on);
    assert.deepEqual(indexedChains.map((x) => x.chainId), [CHAIN_ID], `chains of ${to}`);
    const balances = await avalanche.data.evm.address.balances.listErc20({ chainId: CHAIN_ID, address: to }, on);
    assert.equal(balances.result.nativeTokenBalance.balance, String(amount), `native balance of ${to}`);
    assert.deepEqual(balances.result.erc20TokenBalances, [], `ERC-20 balances of ${to}`);
  }

  // The funded address's transactions, a page each, in both orders:
  // everything it ever sent (one per nonce), ours the newest.
  const nonce = await rpc.getTransactionCount({ address: FUNDED });
  const sent = {};
  for (const sortOrder of ["desc", "asc"]) {
    sent[sortOrder] = (
      await all(
        await avalanche.data.evm.address.transactions.list({ chainId: CHAIN_ID, address: FUNDED, pageSize: 1, sortOrder }, on),
        "transactions",
      )
    ).map((t) => t.nativeTransaction.txHash);
    assert.equal(sent[sortOrder].length, nonce, `${sortOrder}: one transaction listed per nonce of the funded key`);
    assert.equal(new Set(sent[sortOrder]).size, nonce, `${sortOrder}: no transaction listed twice`);
  }
  assert.deepEqual(sent.desc.slice(0, transfers.length), transfers.map((t) => t.hash).reverse());
  assert.deepEqual(sent.asc, [...sent.desc].reverse());
  const { indexedChains } = await avalanche.data.evm.address.chains.list({ address: FUNDED }, on);
  assert.deepEqual(indexedChains.map((x) => x.chainId), [CHAIN_ID]);

  // Every block to the last transfer's, as an explorer lists them, by
  // number and by hash, with the funded address's balances after it:
  // native as eth_getBalance answers there, and no ERC-20 token.
  let cumulative = 0;
  for (let n = 0n; n <= last; n++) {
    const b = await avalanche.data.evm.blocks.get({ chainId: CHAIN_ID, blockId: String(n) }, on);
    assert.equal(b.blockNumber, String(n));
    assert.deepEqual(await avalanche.data.evm.blocks.get({ chainId: CHAIN_ID, blockId: b.blockHash }, on), b);
    cumulative += b.txCount;
    assert.equal(b.cumulativeTransactions, String(cumulative), `cumulativeTransactions of block ${n}`);
    const balances = await avalanche.data.evm.address.balances.listErc20(
      { chainId: CHAIN_ID, address: FUNDED, blockNumber: String(n) },
      on,
    );
    const want = await rpc.getBalance({ address: FUNDED, blockNumber: n });
    assert.equal(balances.result.nativeTokenBalance.balance, String(want), `native balance of ${FUNDED} at block ${n}`);
    assert.deepEqual(balances.result.erc20TokenBalances, []);
  }

  // The metrics API. The C-Chain's throughput counts every transaction of
  // its blocks, once the module has read the transfer's block.
  await until("avg_tps of 43112 counts every transaction", async () => {
    const { results } = await avgTPS(CHAIN_ID);
    const counted = Math.round(results.reduce((sum, p) => sum + p.value * DAY, 0));
    return counted === cumulative ? counted : undefined;
  });
  await avgTPS("X");
  await avgTPS("P");

  // The P-Chain's staking series, an hour a point, a day a page, for ten
  // days, summed over every subnet and of the primary network alone (the
  // same here): the five genesis validators, no delegators.
  for (const [metric, want, subnetId] of [
    ["validatorCount", VALIDATORS],
    ["validatorWeight", VALIDATOR_WEIGHT],
    ["delegatorCount", 0],
    ["delegatorWeight", 0],
  ].flatMap((m) => [m, [...m, PRIMARY_NETWORK]])) {
    const points = [];
    const request = { network: "fuji", metric, subnetId, pageSize: 24 };
    for await (const page of await avalanche.metrics.networks.getStakingMetrics(request, on)) {
      points.push(...page.result.results);
      if (points.length >= 10 * 24) {
        break;
      }
    }
    assert.equal(points.length, 10 * 24, `${metric}: ten days of hours`);
    for (const [i, p] of points.entries()) {
      assert.equal(p.value, want, `${metric} at ${p.timestamp}`);
      if (i > 0) {
        assert.equal(p.timestamp, points[i - 1].timestamp - HOUR, `${metric}: every hour, newest first`);
      }
    }
  }

  // The L1 validator fees: the local network has no L1 validator yet.
  for (const metric of ["totalValidatorFeesDaily", "totalCumulativeFeesDaily", "totalPayingValidatorsDaily"]) {
    const { results } = await avalanche.metrics.l1Validators.listMetrics({ metric }, on);
    assert.ok(results.length > 0, `${metric}: a day at least`);
    assert.ok(results.every((p) => p.value === 0), `${metric}: no L1 validator, nothing paid`);
  }

  for (const [module, n] of Object.entries(requests)) {
    assert.ok(n >= AT_LEAST, `only ${n} requests to the ${module} API: too few to show a rate limit`);
  }
  console.log(`newcomer: ${requests.data} requests to the data API, ${requests.metrics} to the metrics API, every answer as expected`);
}

main().catch((e) => {
  if (e instanceof errors.AvalancheError) {
    // The SDK's errors hold the whole HTTP response: show the request, its
    // status and body.
    console.error(`${e.name} after ${requests.data + requests.metrics} requests: GET ${e.rawResponse.url}: HTTP ${e.statusCode} ${e.body.trim()}`);
  } else {
    console.error(e);
  }
  process.exitCode = 1;
});
