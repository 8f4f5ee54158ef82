// A newcomer's first viem script against the local network's C-Chain
// (README, "The C-Chain"): the chain ID and the funded key's balance over
// HTTP and WebSocket, a transfer with the well-known key and its receipt,
// the balances it moved, and new blocks watched over the WebSocket
// endpoint. Retries are off: any error of the node shows as it is.
//
// Run by TestNewcomer (tests/firsthour) against a node on the embedded
// default config; against a node of your own:
//   NODE_URL=http://127.0.0.1:9650 node newcomer-viem.mjs
import assert from "node:assert/strict";

import { createPublicClient, createWalletClient, defineChain, http, parseEther, webSocket } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

const NODE = process.env.NODE_URL ?? "http://127.0.0.1:9650";

// The well-known local key and its address (README, "The C-Chain").
const KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";
const FUNDED = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC";

/** How long a transfer may take to be mined and its block announced. */
const TIMEOUT_MS = 30_000;

const local = defineChain({
  id: 43112,
  name: "chainhost local C-Chain",
  nativeCurrency: { name: "Avalanche", symbol: "AVAX", decimals: 18 },
  rpcUrls: {
    default: {
      http: [`${NODE}/ext/bc/C/rpc`],
      webSocket: [`${NODE.replace(/^http/, "ws")}/ext/bc/C/ws`],
    },
  },
});
const client = createPublicClient({ chain: local, transport: http(undefined, { retryCount: 0 }), pollingInterval: 50 });
const wallet = createWalletClient({ chain: local, transport: http(undefined, { retryCount: 0 }), account: privateKeyToAccount(KEY) });
const ws = createPublicClient({ chain: local, transport: webSocket(undefined, { retryCount: 0 }) });

assert.equal(await client.getChainId(), 43112);
assert.equal(await ws.getChainId(), 43112);
assert.equal(wallet.account.address, FUNDED);
const before = await client.getBalance({ address: FUNDED });
assert.ok(before > parseEther("1000000"), `the funded key holds ${before} wei`);
assert.equal(await ws.getBalance({ address: FUNDED }), before);

// A transfer of 1 AVAX to a new address: it holds exactly that, and the
// sender paid it and the fee.
const to = privateKeyToAccount(generatePrivateKey()).address;
const hash = await wallet.sendTransaction({ to, value: parseEther("1") });
const receipt = await client.waitForTransactionReceipt({ hash, timeout: TIMEOUT_MS });
assert.equal(receipt.status, "success");
assert.equal(receipt.from.toLowerCase(), FUNDED.toLowerCase());
assert.equal(await client.getBalance({ address: to }), parseEther("1"));
const after = await client.getBalance({ address: FUNDED, blockNumber: receipt.blockNumber });
assert.equal(before - after, parseEther("1") + receipt.gasUsed * receipt.effectiveGasPrice);
const tx = await client.getTransaction({ hash });
assert.equal(tx.blockHash, receipt.blockHash);

// New blocks over the WebSocket: a block is made when a transaction
// waits, so send transfers until the watcher announces the block of one.
const announced = [];
const unwatch = ws.watchBlocks({
  onBlock: (block) => announced.push(block),
  onError: (e) => {
    throw e;
  },
});
const mined = new Map(); // block number -> receipt
const deadline = Date.now() + TIMEOUT_MS;
while (!announced.some((b) => mined.has(b.number))) {
  assert.ok(Date.now() < deadline, `no block announced over the WebSocket within ${TIMEOUT_MS} ms`);
  const sent = await wallet.sendTransaction({ to, value: 1n });
  const r = await client.waitForTransactionReceipt({ hash: sent, timeout: TIMEOUT_MS });
  mined.set(r.blockNumber, r);
}
unwatch();
for (const block of announced.filter((b) => mined.has(b.number))) {
  assert.equal(block.hash, mined.get(block.number).blockHash, `block ${block.number} as announced and as mined`);
}
await ws.transport.getRpcClient().then((c) => c.close());
console.log(`newcomer-viem: chain 43112, a transfer in block ${receipt.blockNumber}, ${announced.length} block(s) announced over the WebSocket`);
