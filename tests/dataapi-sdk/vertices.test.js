// The X-Chain vertex endpoints of the data API (docs/data-api.md, "13.
// Vertices") through the official SDK with its response validation on:
// the latest vertices followed to the end at several page sizes, each
// vertex by hash and by height, against the vertices of the node's X/vtx
// index.
//
// Run by `go test ./tests/e2e -run TestXChainVertexPhase`, which starts a
// node whose X-Chain has a vertex phase and sets DATAAPI_NODE_URL and
// DATAAPI_VERTICES, the IDs of X/vtx's vertices in index order (a JSON
// array of CB58 strings).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Avalanche } from "@avalanche-sdk/chainkit";

import { checkPages, checkUnique } from "./lib/compare.js";
import { guardFetch, sdkOptions } from "./lib/dataapi.js";

const NODE_URL = process.env.DATAAPI_NODE_URL;
const VERTICES = JSON.parse(process.env.DATAAPI_VERTICES ?? "null");
if (!NODE_URL || !Array.isArray(VERTICES) || VERTICES.length === 0) {
  throw new Error("DATAAPI_NODE_URL must name the node and DATAAPI_VERTICES list the IDs of its X/vtx index");
}

guardFetch(NODE_URL);
const sdk = new Avalanche(sdkOptions());
const vertices = sdk.data.primaryNetwork.vertices;
const call = { serverURL: NODE_URL };
const chain = { blockchainId: "x-chain", network: "fuji" };

/** Reads every page of an SDK list. */
async function pages(iterator) {
  const out = [];
  for await (const page of await iterator) {
    out.push(page.result);
  }
  return out;
}

test("the latest vertices, newest first, to the end at every page size", async () => {
  const newestFirst = [...VERTICES].reverse();
  for (const pageSize of [1, 2, VERTICES.length, 100]) {
    const got = await pages(vertices.listLatest({ ...chain, pageSize }, call));
    checkPages(got, "vertices", pageSize, `vertices, pageSize ${pageSize}`);
    const items = got.flatMap((p) => p.vertices);
    checkUnique(items, `vertices, pageSize ${pageSize}`);
    assert.deepEqual(items.map((v) => v.vertexHash), newestFirst, `vertices, pageSize ${pageSize}`);
    items.forEach((v, i) => assert.equal(v.vertexIndex, VERTICES.length - 1 - i, `vertex ${v.vertexHash}: vertexIndex`));
    for (const p of got) {
      assert.deepEqual(p.chainInfo, { chainName: "x-chain", network: "fuji" });
    }
  }
});

test("each vertex by hash and by height is the list's", async () => {
  const [listed] = await pages(vertices.listLatest({ ...chain, pageSize: 100 }, call));
  for (const v of listed.vertices) {
    assert.deepEqual(await vertices.getByHash({ ...chain, vertexHash: v.vertexHash }, call), v);
    for (const sortOrder of ["asc", "desc"]) {
      const got = await pages(vertices.listByHeight({ ...chain, vertexHeight: v.vertexHeight, sortOrder }, call));
      assert.equal(got.length, 1, `height ${v.vertexHeight}: one page`);
      assert.deepEqual(got[0].vertices, [v], `height ${v.vertexHeight}, ${sortOrder}`);
    }
  }
  const above = await pages(vertices.listByHeight({ ...chain, vertexHeight: VERTICES.length + 5 }, call));
  assert.deepEqual(above.map((p) => p.vertices), [[]], "a height above the last vertex holds none");
});

test("testnet names the same chain", async () => {
  const [page] = await pages(vertices.listLatest({ ...chain, network: "testnet", pageSize: 1 }, call));
  assert.equal(page.vertices[0].vertexHash, VERTICES.at(-1));
  assert.equal(page.chainInfo.network, "testnet");
});
