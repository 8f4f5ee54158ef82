// The P-Chain endpoints of the data API (docs/data-api.md, endpoints 40 to
// 46) through the official SDK with its response validation on, after a
// scenario on the P-Chain: two subnets, one made an L1 (which creates its
// manager's chain). Every list is followed to its end at several page
// sizes and in each order, and every value is checked against the chain's
// own platform methods (platform.getBlockByHeight, getBlockchains,
// getSubnets, getSubnet).
//
// Run by `go test ./tests/e2e -run TestDataAPISDK` on the node of the
// conformance suite, with DATAAPI_NODE_URL and CHAINHOST_BIN_DIR (the
// scenario uses `chainhost p`, docs/pchain.md).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { before, test } from "node:test";

import { Avalanche } from "@avalanche-sdk/chainkit";

import { FUNDED_KEY } from "./lib/chain.js";
import { checkPages, checkUnique } from "./lib/compare.js";
import { guardFetch, sdkOptions } from "./lib/dataapi.js";
import { PChain } from "./lib/pchain.js";

const NODE_URL = process.env.DATAAPI_NODE_URL;
const BIN_DIR = process.env.CHAINHOST_BIN_DIR;
if (!NODE_URL || !BIN_DIR) {
  throw new Error("DATAAPI_NODE_URL must name the node and CHAINHOST_BIN_DIR the built binaries");
}

guardFetch(NODE_URL);
const sdk = new Avalanche(sdkOptions());
const pn = sdk.data.primaryNetwork;
const call = { serverURL: NODE_URL };
const network = "fuji";
const p = new PChain(NODE_URL);

/** Runs `chainhost p` against the node and returns its output. */
function chainhostP(...args) {
  return execFileSync(`${BIN_DIR}/bin/chainhost`, ["p", ...args, "--node", NODE_URL, "--key", FUNDED_KEY], { encoding: "utf8" });
}

/** Reads every page of an SDK list. */
async function pages(iterator) {
  const out = [];
  for await (const page of await iterator) {
    out.push(page.result);
  }
  return out;
}

/** Follows a list to its end, checking its pages, and returns its items. */
async function all(list, member, pageSize, what) {
  const got = await pages(list);
  checkPages(got, member, pageSize, what);
  const items = got.flatMap((page) => page[member]);
  checkUnique(items, what);
  return items;
}

let l1;
let plain;
let manager;

before(async () => {
  l1 = chainhostP("create-subnet").trim().split(/\s+/).at(-1);
  plain = chainhostP("create-subnet").trim().split(/\s+/).at(-1);
  const out = chainhostP("convert", "--subnet", l1, "--validator", "NodeID-JJeXGBWwPfLzCJp8VwBM7ktFVCoKRsey3:100:1AVAX");
  manager = out.match(/^manager chain ([^:\s]+):/m)[1];
  // The module indexes each block as the chain accepts it: wait for the last.
  for (let i = 0; ; i++) {
    const res = await fetch(`${NODE_URL}/v1/networks/${network}/subnets/${l1}`);
    if (res.status === 200 && (await res.json()).isL1) break;
    assert.ok(i < 600, "the conversion is not indexed within a minute");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

test("the P-Chain's blocks, newest first, are the chain's, to the end at every page size", async () => {
  const { height } = await p.call("platform.getHeight");
  const want = [];
  for (let h = Number(height); h >= 0; h--) {
    const { block } = await p.call("platform.getBlockByHeight", { height: String(h), encoding: "json" });
    want.push({ blockNumber: String(h), blockHash: block.id, parentHash: block.parentID, blockTimestamp: Number(block.time),
      txCount: block.txs.length, transactions: block.txs.map((tx) => tx.id) });
  }
  for (const pageSize of [1, 3, 100]) {
    const what = `blocks, pageSize ${pageSize}`;
    const items = await all(pn.blocks.listLatest({ network, blockchainId: "p-chain", pageSize }, call), "blocks", pageSize, what);
    // Blocks accepted since the chain was read come first.
    const got = items.slice(items.length - want.length);
    assert.deepEqual(got.map(({ blockNumber, blockHash, parentHash, blockTimestamp, txCount, transactions }) =>
      ({ blockNumber, blockHash, parentHash, blockTimestamp, txCount, transactions })), want, what);
    for (const b of got) {
      assert.equal(b.blockType, "BanffStandardBlock");
      assert.ok(b.blockSizeBytes > 0, `block ${b.blockNumber}: blockSizeBytes`);
    }
  }
  const [newest] = await pages(pn.blocks.listLatest({ network, blockchainId: "11111111111111111111111111111111LpoYY", pageSize: 1 }, call));
  for (const b of newest.blocks) {
    assert.deepEqual(await pn.blocks.get({ network, blockchainId: "p-chain", blockId: b.blockHash }, call), b);
  }
  const start = want.at(-1).blockTimestamp + 1;
  const later = await all(pn.blocks.listLatest({ network, blockchainId: "p-chain", startTimestamp: start, pageSize: 2 }, call), "blocks", 2, "blocks after genesis");
  assert.ok(later.every((b) => b.blockTimestamp >= start), "blocks after genesis");
  const byNode = await pages(pn.blocks.listByNodeId({ network, blockchainId: "p-chain", nodeId: "NodeID-JJeXGBWwPfLzCJp8VwBM7ktFVCoKRsey3" }, call));
  assert.deepEqual(byNode.map((page) => page.blocks), [[]], "no block has a proposer");
});

test("the blockchains are platform.getBlockchains', in creation order each way", async () => {
  const { blockchains } = await p.call("platform.getBlockchains");
  const key = (c) => `${c.id} ${c.name} ${c.subnetID} ${c.vmID}`;
  const want = blockchains.map(key).sort();
  for (const sortOrder of ["asc", "desc"]) {
    for (const pageSize of [1, 2, 100]) {
      const what = `blockchains ${sortOrder}, pageSize ${pageSize}`;
      const items = await all(pn.listBlockchains({ network, sortOrder, pageSize }, call), "blockchains", pageSize, what);
      assert.deepEqual(items.map((c) => key({ id: c.blockchainId, name: c.blockchainName, subnetID: c.subnetId, vmID: c.vmId })).sort(), want, what);
      const places = items.map((c) => Number(c.createBlockNumber));
      const sorted = [...places].sort((a, b) => (sortOrder === "asc" ? a - b : b - a));
      assert.deepEqual(places, sorted, `${what}: in creation order`);
      for (const c of items) {
        assert.deepEqual(await pn.getBlockchainById({ network, blockchainId: c.blockchainId }, call), c);
      }
    }
  }
  const m = await pn.getBlockchainById({ network, blockchainId: manager }, call);
  assert.equal(m.subnetId, l1);
  assert.ok(Number(m.createBlockNumber) > 0);
});

test("the subnets are platform.getSubnets', with their owner, conversion and chains", async () => {
  const { subnets } = await p.call("platform.getSubnets");
  const key = (id, keys, threshold) => `${id} ${keys.join(",")} ${threshold}`;
  const want = subnets.map((s) => key(s.id, s.controlKeys, Number(s.threshold))).sort();
  for (const sortOrder of ["asc", "desc"]) {
    for (const pageSize of [1, 100]) {
      const what = `subnets ${sortOrder}, pageSize ${pageSize}`;
      const items = await all(pn.listSubnets({ network, sortOrder, pageSize }, call), "subnets", pageSize, what);
      assert.deepEqual(items.map((s) => key(s.subnetId, s.subnetOwnershipInfo.addresses, s.subnetOwnershipInfo.threshold)).sort(), want, what);
      for (const s of items) {
        assert.deepEqual(await pn.getSubnetById({ network, subnetId: s.subnetId }, call), s);
      }
    }
  }
  const got = await pn.getSubnetById({ network, subnetId: l1 }, call);
  const sn = await p.call("platform.getSubnet", { subnetID: l1 });
  assert.equal(got.isL1, !sn.isPermissioned);
  assert.equal(got.l1ValidatorManagerDetails.blockchainId, sn.managerChainID);
  assert.equal(got.l1ValidatorManagerDetails.contractAddress, sn.managerAddress);
  assert.deepEqual(got.blockchains.map((c) => c.blockchainId), [manager]);
  const tx = await p.call("platform.getTx", { txID: got.l1ConversionTransactionHash, encoding: "json" });
  assert.equal(tx.tx.unsignedTx.subnetID, l1, "the conversion transaction converts the L1");
  const other = await pn.getSubnetById({ network, subnetId: plain }, call);
  assert.equal(other.isL1, false);
  assert.deepEqual(other.blockchains, []);
});
