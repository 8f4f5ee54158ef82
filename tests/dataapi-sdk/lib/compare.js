// Comparing the SDK's answers with the oracle's.
import assert from "node:assert/strict";

import { CHECKED_TIMESTAMP, STANDARD_METHODS } from "./oracle.js";

/** Asserts that actual deep-equals expected, saying what was compared. */
export function same(actual, expected, what) {
  try {
    assert.deepStrictEqual(actual, expected);
  } catch (e) {
    // A new error: the stack of the first one already holds its message.
    assert.fail(`${what}:\n${e.message}`);
  }
}

/**
 * Returns a function that brings an answer to the oracle's terms where the
 * oracle cannot know the value: a metadata timestamp is checked to lie
 * between since (Unix seconds) and now; metadata attributes and properties
 * (JSON text) are parsed; the name of a method outside the token
 * standards, which the data API may give or not, is checked against the
 * scenario's ABIs and dropped.
 */
export function normalizer({ methods, since }) {
  const normalize = (v) => {
    if (Array.isArray(v)) {
      return v.map(normalize);
    }
    if (v === null || typeof v !== "object") {
      return v;
    }
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (x !== undefined) {
        out[k] = normalize(x);
      }
    }
    if ("indexStatus" in out) {
      const t = out.metadataLastUpdatedTimestamp;
      if (typeof t === "number" && t >= since && t <= Date.now() / 1000 + 1) {
        out.metadataLastUpdatedTimestamp = CHECKED_TIMESTAMP;
      }
      for (const k of ["attributes", "properties"]) {
        if (typeof out[k] === "string") {
          out[k] = JSON.parse(out[k]);
        }
      }
    }
    if (
      out.callType === "CONTRACT_CALL" &&
      out.methodName !== undefined &&
      !STANDARD_METHODS.has(out.methodName) &&
      methods.get(out.methodHash) === out.methodName
    ) {
      delete out.methodName;
    }
    return out;
  };
  return normalize;
}

/**
 * Checks the pages of a list read with pageSize: every page but the last
 * is full and has a nextPageToken, the last has none, and no page but a
 * lone first one is empty.
 */
export function checkPages(pages, member, pageSize, what) {
  pages.forEach((p, i) => {
    const n = p[member].length;
    if (i < pages.length - 1) {
      assert.ok(p.nextPageToken, `${what}: page ${i + 1} of ${pages.length} has no nextPageToken`);
      assert.equal(n, pageSize, `${what}: page ${i + 1} of ${pages.length} has ${n} items, want ${pageSize}`);
    } else {
      assert.equal(p.nextPageToken, undefined, `${what}: the last page has a nextPageToken`);
      assert.ok(n <= pageSize, `${what}: the last page has ${n} items, above the page size ${pageSize}`);
      assert.ok(n > 0 || pages.length === 1, `${what}: the last of ${pages.length} pages is empty`);
    }
  });
}

/** Asserts that no item appears twice. */
export function checkUnique(items, what) {
  const seen = new Set();
  for (const item of items) {
    const k = JSON.stringify(item);
    assert.ok(!seen.has(k), `${what}: an item appears twice: ${k}`);
    seen.add(k);
  }
}

/** Runs fn on every item, at most limit at a time. */
export async function forEach(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
