// The metrics API conformance suite (docs/metrics-api.md, "Conformance
// suite"): every v2 endpoint read through the official SDK, with its
// response validation on, paged to the end, and checked against the
// P-Chain's own reads.
//
// Run by `go test ./tests/e2e -run TestMetricsAPISDK`, which starts a
// node, makes validators, delegators and L1 validators change at known
// times on its P-Chain and sets METRICS_NODE_URL; or against any local
// node whose P-Chain has some history:
//   METRICS_NODE_URL=http://127.0.0.1:9650 node --test metrics.test.js
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";

import { Avalanche } from "@avalanche-sdk/chainkit";
import * as errors from "@avalanche-sdk/chainkit/models/errors";

import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

import { chainRPC, connectChain, FUNDED_KEY } from "./lib/chain.js";
import { CHAIN_METRICS, ChainMetrics, INTERVALS, readBlocks, ROLLING_METRICS } from "./lib/chainmetrics.js";
import { checkPages, same } from "./lib/compare.js";
import { compileContracts } from "./lib/contracts.js";
import { guardFetch, sdkOptions } from "./lib/dataapi.js";
import { DAY, HOUR, PChain, STAKING_METRICS } from "./lib/pchain.js";

const NODE_URL = process.env.METRICS_NODE_URL;
if (!NODE_URL) {
  throw new Error("METRICS_NODE_URL must name the node, like http://127.0.0.1:9650");
}

/** How long the metrics module may take to read the P-Chain's last block. */
const CATCH_UP_MS = 60_000;

/** Page sizes the staking series are read with: 2160, the largest, reads them in one page. */
const PAGE_SIZES = [2160, 24, 7];

const fetched = guardFetch(NODE_URL);
const sdk = new Avalanche(sdkOptions());
const call = { serverURL: NODE_URL };
const p = new PChain(NODE_URL);

let now; // the P-Chain's time
let genesis; // its genesis time
let series; // PChain.stakingSeries
let l1s; // the L1s: subnet ID -> validation IDs

/** Every page of a staking series through the SDK's page iterator; the pages' results. */
async function stakingPages(request) {
  const pages = [];
  for await (const page of await sdk.metrics.networks.getStakingMetrics(request, call)) {
    pages.push(page.result);
  }
  return pages;
}

/** The points of a staking series, all pages read and checked. */
async function staking(request) {
  const pages = await stakingPages(request);
  if (request.pageSize) {
    checkPages(pages, "results", request.pageSize, JSON.stringify(request));
  }
  return pages.flatMap((p) => p.results);
}

/** The points whose timestamp lies in [start, end]. */
const within = (points, start, end) => points.filter((x) => x.timestamp >= start && x.timestamp <= end);

before(async () => {
  now = await p.now();
  genesis = await p.genesisTime();
  series = await p.stakingSeries(genesis, now);
  l1s = new Map();
  for (const subnet of series.keys()) {
    if (subnet === "" || subnet === "11111111111111111111111111111111LpoYY") {
      continue;
    }
    l1s.set(subnet, await p.validationIDs(subnet));
  }
  // The module follows the chain as its blocks come: wait until the
  // newest hour of the sum is the chain's.
  const want = series.get("").get("validatorWeight");
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const [page] = await stakingPages({ network: "fuji", metric: "validatorWeight", pageSize: 2160 });
    if (JSON.stringify(page.results) === JSON.stringify(want.slice(0, page.results.length)) && page.results.length === Math.min(2160, want.length)) {
      break;
    }
    if (Date.now() > deadline) {
      assert.fail(`the metrics API did not catch up with the P-Chain within ${CATCH_UP_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

test("the P-Chain has the history the suite needs", () => {
  assert.ok(l1s.size > 0, "no L1");
  assert.ok([...l1s.values()].some((ids) => ids.length > 1), "no L1 with two validators");
  assert.ok(now - genesis > 2 * DAY, "less than two days of history: no midnight inside a series");
  const counts = new Set(series.get("").get("validatorCount").map((x) => x.value));
  assert.ok(counts.size > 2, "the validator count never changed");
  assert.ok(series.get("").get("delegatorWeight").some((x) => x.value > 0), "no delegation");
});

describe("/v2/networks/{network}/metrics/{metric}", () => {
  test("every metric of the sum and of each subnet, in one page and in pages, as the P-Chain's totals at each hour's end", async () => {
    for (const [subnet, metrics] of series) {
      for (const metric of STAKING_METRICS) {
        const want = metrics.get(metric);
        for (const pageSize of PAGE_SIZES) {
          const request = { network: "fuji", metric, pageSize, ...(subnet && { subnetId: subnet }) };
          same(await staking(request), want, JSON.stringify(request));
        }
      }
    }
  });

  test("the test network by both names, the default page size", async () => {
    const want = series.get("").get("validatorCount");
    for (const network of ["fuji", "testnet"]) {
      const [first] = await stakingPages({ network, metric: "validatorCount" });
      same(first.results, want.slice(0, 100), `${network}, the first page`);
      assert.equal(first.nextPageToken !== undefined, want.length > 100);
    }
  });

  test("startTimestamp and endTimestamp bound the points' timestamps", async () => {
    const want = series.get("").get("delegatorCount");
    const cases = [
      [genesis + HOUR + 1, now - 5 * HOUR],
      [genesis + DAY, genesis + 2 * DAY - 1], // one UTC day
      [genesis, genesis],
      [now + HOUR, now + 2 * HOUR],
    ];
    for (const [startTimestamp, endTimestamp] of cases) {
      const request = { network: "fuji", metric: "delegatorCount", startTimestamp, endTimestamp, pageSize: 5 };
      same(await staking(request), within(want, startTimestamp, endTimestamp), JSON.stringify(request));
    }
  });
});

describe("/v2/validation/{l1ValidationId}/metrics/{metric}", () => {
  test("every L1 validator's fees and cumulative fees per day, as the P-Chain's fee records", async () => {
    for (const ids of l1s.values()) {
      for (const l1ValidationId of ids) {
        const days = await p.validatorFees(l1ValidationId);
        for (const [metric, field] of [
          ["validationFeesDaily", "fees"],
          ["validationCumulativeFeesDaily", "cumulativeFees"],
        ]) {
          const got = await sdk.metrics.l1Validators.getMetricsByValidationId({ l1ValidationId, metric }, call);
          same(got, { results: days.map((d) => ({ value: Number(d[field]), timestamp: Number(d.day) })) }, `${metric} of ${l1ValidationId}`);
        }
      }
    }
  });
});

describe("/v2/validators/metrics/{metric}", () => {
  test("all L1 validators' fees, cumulative fees and paying validators per day since the genesis", async () => {
    const days = await p.feeTotals();
    assert.ok(days.some((d) => Number(d.payingValidators) > 1), "no day with two paying validators");
    for (const [metric, field] of [
      ["totalValidatorFeesDaily", "fees"],
      ["totalCumulativeFeesDaily", "cumulativeFees"],
      ["totalPayingValidatorsDaily", "payingValidators"],
    ]) {
      const want = days.map((d) => ({ value: Number(d[field]), timestamp: Number(d.day) }));
      same(await sdk.metrics.l1Validators.listMetrics({ metric }, call), { results: want }, metric);
      const startTimestamp = genesis + 1;
      const endTimestamp = now - DAY;
      same(
        await sdk.metrics.l1Validators.listMetrics({ metric, startTimestamp, endTimestamp }, call),
        { results: within(want, startTimestamp, endTimestamp) },
        `${metric} from ${startTimestamp} to ${endTimestamp}`,
      );
    }
  });
});

/**
 * The daily sums of several L1 validators' fee records (each newest first,
 * as PChain.validatorFees gives them), newest first, from the first day of
 * any of them to the P-Chain's day: fees, cumulative fees (a validator's
 * last carried on) and how many paid.
 */
function sumFees(records) {
  const first = Math.min(...records.filter((r) => r.length > 0).map((r) => Number(r.at(-1).day)));
  const last = Math.floor(now / DAY) * DAY;
  const out = [];
  for (let day = last; day >= first; day -= DAY) {
    let fees = 0;
    let cumulative = 0;
    let paying = 0;
    for (const r of records) {
      const d = r.find((x) => Number(x.day) <= day); // its day, or its last before
      if (d === undefined) {
        continue;
      }
      cumulative += Number(d.cumulativeFees);
      if (Number(d.day) === day) {
        fees += Number(d.fees);
        paying += Number(d.fees) > 0 ? 1 : 0;
      }
    }
    out.push({ day, fees, cumulative, paying });
  }
  return out;
}

describe("/v2/validator/{nodeId}/metrics/{metric} and /v2/subnet/{subnetId}/metrics/{metric}", () => {
  test("each L1's and each of its validators' nodes' fees per day, as the sums of the P-Chain's fee records", async () => {
    const points = (days, field) => ({ results: days.map((d) => ({ value: d[field], timestamp: d.day })) });
    for (const [subnetId, ids] of l1s) {
      const days = sumFees(await Promise.all(ids.map((id) => p.validatorFees(id))));
      assert.ok(days.some((d) => d.paying > 1), `no day with two paying validators of ${subnetId}`);
      for (const [metric, field] of [
        ["perSubnetDailyFeesPaid", "fees"],
        ["perSubnetCumulativeFeesPaid", "cumulative"],
        ["perSubnetPayingValidators", "paying"],
      ]) {
        same(await sdk.metrics.l1Validators.getMetricsBySubnetId({ subnetId, metric }, call), points(days, field), `${metric} of ${subnetId}`);
        const startTimestamp = days.at(-1).day + 1;
        const endTimestamp = now;
        same(
          await sdk.metrics.l1Validators.getMetricsBySubnetId({ subnetId, metric, startTimestamp, endTimestamp }, call),
          { results: points(days, field).results.filter((x) => x.timestamp >= startTimestamp && x.timestamp <= endTimestamp) },
          `${metric} of ${subnetId} from ${startTimestamp}`,
        );
      }
    }
    const nodes = new Map();
    for (const v of await p.l1Validators([...l1s.keys()])) {
      nodes.set(v.nodeID, [...(nodes.get(v.nodeID) ?? []), v]);
    }
    for (const [nodeId, validators] of nodes) {
      const days = sumFees(await Promise.all(validators.map((v) => p.validatorFees(v.validationID))));
      for (const [metric, field] of [
        ["perNodeDailyFeesPaid", "fees"],
        ["perNodeCumulativeFeesPaid", "cumulative"],
      ]) {
        same(await sdk.metrics.l1Validators.getMetricsByNodeId({ nodeId, metric }, call), points(days, field), `${metric} of ${nodeId}`);
      }
    }
  });
});

describe("/v2/subnets/{subnetId}/validators:getAddresses", () => {
  /** Every page through the SDK's iterator, checked; the items. */
  async function addressPages(request) {
    const pages = [];
    for await (const page of await sdk.metrics.subnets.getValidators(request, call)) {
      pages.push(page.result);
    }
    checkPages(pages, "addresses", request.pageSize ?? 1000, JSON.stringify(request));
    return pages.flatMap((x) => x.addresses);
  }
  // By start; equal starts (ordered by transaction ID) compare as sets.
  const key = (x) => `${String(x.sortKey).padStart(20, "0")} ${x.addresses.join(",")}`;
  const sorted = (items) => items.toSorted((a, b) => key(a).localeCompare(key(b)));

  test("the primary network's validation periods and their reward addresses, as the P-Chain's validators and blocks give them, in every range and page size", async () => {
    const periods = await p.validatorPeriods();
    assert.ok(periods.some((v) => v.end <= now), "no validation period has ended");
    const want = (from, to) => periods.filter((v) => v.start <= to && v.end > from).map((v) => ({ addresses: v.addresses, sortKey: String(v.start) }));
    const subnetId = "11111111111111111111111111111111LpoYY";
    for (const [startTimestamp, endTimestamp] of [
      [undefined, undefined],
      [genesis + DAY + 1800, genesis + DAY + 1800],
      [now - HOUR, now],
      [genesis + 3 * DAY, now + 100 * DAY],
    ]) {
      for (const pageSize of [undefined, 2, 1]) {
        const request = { subnetId, network: "fuji", startTimestamp, endTimestamp, pageSize };
        const got = await addressPages(request);
        const starts = got.map((x) => Number(x.sortKey));
        assert.deepEqual(starts, starts.toSorted((a, b) => a - b), `${JSON.stringify(request)}: not by start`);
        same(sorted(got), sorted(want(startTimestamp ?? 0, endTimestamp ?? Infinity)), JSON.stringify(request));
      }
    }
    for (const subnet of l1s.keys()) {
      same(await addressPages({ subnetId: subnet }), [], `the L1 ${subnet}: its validators are rewarded nothing`);
    }
  });
});

/** The EVM chain ID a chain of the node answers eth_chainId with at its rpc handler; undefined for a chain without one. */
async function evmChainID(blockchainID) {
  const res = await fetch(`${NODE_URL}/ext/bc/${blockchainID}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
  });
  if (!res.ok) {
    return undefined;
  }
  const body = await res.json();
  return body.result === undefined ? undefined : Number(BigInt(body.result));
}

/** Every page of /v2/chains through the SDK's page iterator; the pages' results. */
async function chainPages(request) {
  const pages = [];
  for await (const page of await sdk.metrics.chains.list(request, call)) {
    pages.push(page.result);
  }
  return pages;
}

describe("/v2/chains and /v2/chains/{chainId}", () => {
  test("every EVM chain of the node, in one page, as the P-Chain's blockchains and each chain's eth_chainId describe it", async () => {
    const { blockchains } = await p.call("platform.getBlockchains");
    const want = [];
    for (const c of blockchains) {
      const id = await evmChainID(c.id);
      if (id !== undefined) {
        want.push({ evmChainId: id, chainName: c.name, blockchainId: c.id, subnetId: c.subnetID, network: "testnet" });
      }
    }
    assert.ok(want.length > 0, "the node runs no EVM chain");
    same(await chainPages({}), [{ chains: want }], "/v2/chains, one page");
    for (const network of ["fuji", "testnet"]) {
      same(await chainPages({ network }), [{ chains: want }], `/v2/chains?network=${network}`);
    }
    same(await chainPages({ network: "mainnet" }), [{ chains: [] }], "/v2/chains?network=mainnet on a local node");
    for (const chain of want) {
      for (const chainId of [String(chain.evmChainId), chain.blockchainId, chain.chainName]) {
        same(await sdk.metrics.chains.get({ chainId }, call), chain, `/v2/chains/${chainId}`);
      }
    }
  });
});

/** Calls fn, which must fail with the SDK error class for status and a message string matching messagePart. */
async function wantError(fn, Class, status, messagePart) {
  const e = await fn().then(
    (v) => assert.fail(`answered ${JSON.stringify(v)}, want ${status}`),
    (e) => e,
  );
  assert.ok(e instanceof Class, `${e.constructor.name} (${e.message}), want ${Class.name}`);
  assert.equal(e.statusCode, status);
  const body = JSON.parse(e.body);
  assert.deepEqual(Object.keys(body).sort(), ["error", "message", "statusCode"], `REST body ${e.body}`);
  assert.equal(typeof body.message, "string", "v2 messages are strings");
  assert.match(body.message, messagePart);
}


/** Every page of a chain metric through the SDK's page iterator; the pages' results. */
async function chainMetricPages(request) {
  const pages = [];
  for await (const page of await sdk.metrics.chains.getMetrics(request, call)) {
    pages.push(page.result);
  }
  return pages;
}

/** Waits until the metrics module has counted the C-Chain's blocks up to head. */
async function waitCounted(head) {
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const health = await (await fetch(`${NODE_URL}/ext/health`)).json();
    if (health.checks["module/metrics"]?.details?.chains?.C?.counted >= Number(head)) {
      return;
    }
    if (Date.now() > deadline) {
      assert.fail(`the metrics module did not count the C-Chain's block ${head} within ${CATCH_UP_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Compares a series with the oracle's: exactly, but the mean gas price to 12 digits (a sum of wei above 2^53). */
function sameSeries(got, want, what) {
  if (!what.includes("avgGasPrice")) {
    same(got, want, what);
    return;
  }
  assert.equal(got.length, want.length, `${what}: ${got.length} points, want ${want.length}`);
  got.forEach((p, i) => {
    assert.equal(p.timestamp, want[i].timestamp, `${what}: point ${i}`);
    assert.ok(Math.abs(p.value - want[i].value) <= Math.abs(want[i].value) * 1e-12, `${what}: point ${i} = ${p.value}, want ${want[i].value}`);
  });
}

describe("/v2/chains/{chainId}/metrics/{metric} and rollingWindowMetrics", () => {
  let metrics; // ChainMetrics of the C-Chain

  before(async () => {
    // EVM activity of the suite's own: transfers to fresh addresses, two
    // in one block; a token's creation (its constructor mints) and a
    // transfer of it.
    const chain = await connectChain(chainRPC(NODE_URL));
    const wallet = chain.wallet(FUNDED_KEY);
    const { SuiteToken } = compileContracts();
    const [a, b, c] = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()).address);
    await chain.oneBlock(() => wallet.send({ to: a, value: 1n }), () => wallet.send({ to: b, value: 2n, type: "legacy" }));
    // Two hours on (chainhost's dev method): buckets without a block, and a
    // chain ahead of the module's clock.
    await chain.request("evm_increaseTime", [2 * 3600]);
    const { contractAddress: token } = await chain.mined(wallet.deploy(SuiteToken, ["Metrics Token", "MET", 18, 1000n]));
    await chain.mined(wallet.invoke(SuiteToken, token, "transfer", [c, 5n]));
    const head = await chain.client.getBlockNumber();
    await waitCounted(head);
    metrics = new ChainMetrics(await readBlocks(chain, head));
  });

  test("every metric at every interval, in one page and paged, as the chain's blocks, receipts and traces give it", async () => {
    for (const timeInterval of Object.keys(INTERVALS)) {
      for (const metric of CHAIN_METRICS) {
        const want = metrics.series(metric, timeInterval);
        for (const chainId of ["43112", "C"]) {
          const pages = await chainMetricPages({ chainId, metric, timeInterval, pageSize: 2160 });
          assert.equal(pages.length, 1, `${metric} ${timeInterval}: ${pages.length} pages of 2160`);
          sameSeries(pages[0].results, want, `${chainId} ${metric} ${timeInterval}`);
        }
      }
    }
    // Paged: the hourly transaction count and fees, 2 points a page.
    for (const metric of ["txCount", "feesPaid", "cumulativeAddresses"]) {
      const pages = await chainMetricPages({ chainId: "43112", metric, timeInterval: "hour", pageSize: 2 });
      checkPages(pages, "results", 2, `${metric} hourly, pages of 2`);
      same(pages.flatMap((p) => p.results), metrics.series(metric, "hour"), `${metric} hourly, pages of 2`);
    }
    // The default interval is the day; a range keeps the buckets that start in it.
    same((await chainMetricPages({ chainId: "43112", metric: "txCount" }))[0].results, metrics.series("txCount", "day"), "txCount, no timeInterval");
    const hours = metrics.series("txCount", "hour");
    const [newest, oldest] = [hours[0].timestamp, hours.at(-1).timestamp];
    assert.ok(hours.length > 2, `the chain's blocks span ${hours.length} hours`);
    same(
      (await chainMetricPages({ chainId: "43112", metric: "txCount", timeInterval: "hour", startTimestamp: oldest + 1, endTimestamp: newest })).flatMap((p) => p.results),
      hours.filter((x) => x.timestamp > oldest),
      "txCount hourly after the first hour",
    );
  });

  test("the rolling windows of every metric", async () => {
    for (const metric of ROLLING_METRICS) {
      const before = Math.max(INTERVALS.hour(Math.floor(Date.now() / 1000)), metrics.series("txCount", "hour")[0].timestamp);
      const got = await sdk.metrics.chains.getRollingWindowMetrics({ chainId: "43112", metric }, call);
      const after = Math.max(INTERVALS.hour(Math.floor(Date.now() / 1000)), before);
      const wants = [metrics.rolling(metric, before), metrics.rolling(metric, after)];
      // Exactly, but the mean gas price to 12 digits.
      const close = (x, y) => (metric === "avgGasPrice" ? Math.abs(x - y) <= Math.abs(y) * 1e-12 : x === y);
      const ok = wants.some(
        (want) => JSON.stringify(Object.keys(got.result)) === JSON.stringify(Object.keys(want)) && Object.keys(want).every((k) => close(got.result[k], want[k])),
      );
      assert.ok(ok, `${metric}: ${JSON.stringify(got.result)}, want ${JSON.stringify(wants[0])}`);
    }
  });

  test("400 and 404: page size, timestamps, page token, chains", async () => {
    const list = (request) => chainMetricPages({ chainId: "43112", metric: "txCount", ...request });
    await wantError(() => list({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ pageSize: 2161 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ startTimestamp: 10, endTimestamp: 5 }), errors.BadRequestError, 400, /^startTimestamp: /);
    await wantError(() => list({ pageToken: "forged" }), errors.BadRequestError, 400, /^pageToken: .*start again from the first page/);
    await wantError(() => list({ chainId: "99999" }), errors.NotFoundError, 404, /not found/);
    await wantError(() => list({ chainId: "P" }), errors.NotFoundError, 404, /not an EVM chain/);
    await wantError(() => sdk.metrics.chains.getRollingWindowMetrics({ chainId: "total", metric: "txCount" }, call), errors.NotFoundError, 404, /not kept/);
  });
});

describe("/v2/health-check and /v2/live-check", () => {
  test("ok, the store up", async () => {
    const want = { status: "ok", info: { store: { status: "up" } }, error: {}, details: { store: { status: "up" } } };
    same(await sdk.metrics.healthCheck(call), want, "/v2/health-check");
    same(await sdk.metrics.liveCheck(call), want, "/v2/live-check");
  });
});

describe("errors as the SDK's typed errors", () => {
  test("400: page size, timestamps, page token, subnet ID, validation ID", async () => {
    const list = (request) => stakingPages({ network: "fuji", metric: "validatorCount", ...request });
    await wantError(() => list({ pageSize: 0 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ pageSize: 2161 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => list({ startTimestamp: 10, endTimestamp: 5 }), errors.BadRequestError, 400, /^startTimestamp: /);
    await wantError(() => list({ pageToken: "forged" }), errors.BadRequestError, 400, /^pageToken: .*start again from the first page/);
    await wantError(() => list({ subnetId: "nope" }), errors.BadRequestError, 400, /^subnetId: /);
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsByValidationId({ l1ValidationId: "nope", metric: "validationFeesDaily" }, call),
      errors.BadRequestError,
      400,
      /^l1ValidationId: /,
    );
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsByNodeId({ nodeId: "nope", metric: "perNodeDailyFeesPaid" }, call),
      errors.BadRequestError,
      400,
      /^nodeId: /,
    );
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsBySubnetId({ subnetId: "nope", metric: "perSubnetDailyFeesPaid" }, call),
      errors.BadRequestError,
      400,
      /^subnetId: /,
    );
    const addresses = async (request) => {
      for await (const page of await sdk.metrics.subnets.getValidators({ subnetId: "11111111111111111111111111111111LpoYY", ...request }, call)) {
        void page;
      }
    };
    await wantError(() => addresses({ pageSize: 5001 }), errors.BadRequestError, 400, /^pageSize: /);
    await wantError(() => addresses({ pageToken: "forged" }), errors.BadRequestError, 400, /^pageToken: .*start again from the first page/);
  });

  test("400 and 404 of /v2/chains: a page token, an unknown chain, a chain without an EVM chain ID", async () => {
    await wantError(() => chainPages({ pageToken: "forged" }), errors.BadRequestError, 400, /^pageToken: .*start again from the first page/);
    await wantError(() => sdk.metrics.chains.get({ chainId: "99999" }, call), errors.NotFoundError, 404, /not found/);
    await wantError(() => sdk.metrics.chains.get({ chainId: "P" }, call), errors.NotFoundError, 404, /not an EVM chain/);
  });

  test("404: the path a self-hosted node cannot serve", async () => {
    await wantError(
      () => sdk.metrics.chains.listBTCbBridgersAboveThreshold({ threshold: "1" }, call),
      errors.NotFoundError,
      404,
      /is not served by a self-hosted node: /,
    );
  });

  test("404: mainnet on a local node, an unknown subnet and validation ID", async () => {
    await wantError(() => stakingPages({ network: "mainnet", metric: "validatorCount" }), errors.NotFoundError, 404, /does not serve network mainnet/);
    const unknown = "2YYCZGHjqnbw1MzQ5fGrTp3SjqUu8y1J1xeW4yuhdXe4LoUVVG";
    await wantError(() => stakingPages({ network: "fuji", metric: "validatorCount", subnetId: unknown }), errors.NotFoundError, 404, /not found/);
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsByValidationId({ l1ValidationId: unknown, metric: "validationFeesDaily" }, call),
      errors.NotFoundError,
      404,
      /not found/,
    );
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsBySubnetId({ subnetId: unknown, metric: "perSubnetDailyFeesPaid" }, call),
      errors.NotFoundError,
      404,
      /not found on the P-Chain/,
    );
    await wantError(
      () => sdk.metrics.l1Validators.getMetricsByNodeId({ nodeId: "NodeID-JQPadXEMWtRtJyXrisyDNWuXKSjSf9D36", metric: "perNodeDailyFeesPaid" }, call),
      errors.NotFoundError,
      404,
      /has not validated an L1/,
    );
  });
});

test("sent nothing anywhere but the node (telemetry off, serverURL on every call)", () => {
  assert.deepEqual(fetched.refused, []);
});
