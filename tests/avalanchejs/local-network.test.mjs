// avalanche.js 3.16 on its built-in defaults for avalanchego's local
// network (network ID 12345), told no chain or asset ID but the C-Chain's
// (see the X → C test), against a
// chainhost node on 127.0.0.1 (port CHAINHOST_PORT, default 9650): an
// X-Chain transfer, an X→C export and a C import, an X→P export and a P
// import, each accepted or committed and moving the balances by exactly
// its amounts and fees (docs/avalanchego-clients.md). Run with node --test:
// the three flows are reported apart.
import assert from "node:assert/strict"
import test from "node:test"
import avalanchejs from "avalanche"
import avm from "avalanche/dist/apis/avm/index.js"
import utils from "avalanche/dist/utils/index.js"

const { Avalanche, BN } = avalanchejs
const { costImportTx } = utils

// The well-known local-network key and its EVM address.
const ewoqKey = "PrivateKey-ewoqjP7PxY4yr3iLTpLisriqt94hdyDFNgchSxGGztUrTXtNN"
const ewoqEth = "0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"
const AVAX = new BN(1_000_000_000) // nAVAX
const timeoutMs = 60_000

const port = Number(process.env.CHAINHOST_PORT ?? 9650)
const avalanche = new Avalanche("127.0.0.1", port, "http", 12345)
const xchain = avalanche.XChain()
const pchain = avalanche.PChain()
const cchain = avalanche.CChain()
for (const chain of [xchain, pchain, cchain]) chain.keyChain().importKey(ewoqKey)
const xAddrs = xchain.keyChain().getAddressStrings()
const pAddrs = pchain.keyChain().getAddressStrings()
const cAddrs = cchain.keyChain().getAddressStrings()

// until polls f until want accepts what it returns, for at most timeoutMs.
async function until(what, f, want) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const got = await f()
    if (want(got)) return got
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(got)} after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
const accepted = (id) => until(`X tx ${id}`, () => xchain.getTxStatus(id), (s) => s === "Accepted")
const committed = (id) => until(`P tx ${id}`, () => pchain.getTxStatus(id), (s) => s.status === "Committed")
const atomicAccepted = (id) => until(`C atomic tx ${id}`, () => cchain.getAtomicTxStatus(id), (s) => s === "Accepted")

const xBalance = async (addr) => new BN((await xchain.getBalance(addr, "AVAX")).balance)
// avalanche.js 3.16's pchain.getBalance sends `address`, a parameter
// avalanchego replaced by `addresses`: the call is made as avalanchego
// takes it.
const pBalance = async (addr) =>
  new BN((await pchain.callMethod("platform.getBalance", { addresses: [addr] })).data.result.balance)
async function weiBalance(addr) {
  const res = await fetch(`http://127.0.0.1:${port}/ext/bc/C/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [addr, "latest"] })
  })
  const { result, error } = await res.json()
  if (error) throw new Error(`eth_getBalance: ${error.message}`)
  return BigInt(result)
}
const xUTXOs = async () => (await xchain.getUTXOs(xAddrs)).utxos

// exportFromX exports amount from X to the chain called destination in
// avalanche.js's defaults, to the addresses to, checks that it is
// accepted and that X paid exactly the amount and the fee, and returns
// its ID.
async function exportFromX(amount, destination, to) {
  const before = await xBalance(xAddrs[0])
  const tx = await xchain.buildExportTx(await xUTXOs(), amount, destination, to, xAddrs, xAddrs)
  const id = await xchain.issueTx(tx.sign(xchain.keyChain()))
  await accepted(id)
  const spent = before.sub(await xBalance(xAddrs[0]))
  assert.equal(spent.toString(), amount.add(xchain.getTxFee()).toString(), "the X balance spent on the export")
  return id
}

test("X-Chain transfer", async () => {
  const friend = new avm.KeyChain(avalanche.getHRP(), "X").makeKey().getAddressString()
  const before = await xBalance(xAddrs[0])
  const tx = await xchain.buildBaseTx(await xUTXOs(), AVAX, await xchain.getAVAXAssetID(), [friend], xAddrs, xAddrs)
  const id = await xchain.issueTx(tx.sign(xchain.keyChain()))
  await accepted(id)
  assert.equal((await xBalance(friend)).toString(), AVAX.toString(), "the friend's X balance")
  assert.equal(before.sub(await xBalance(xAddrs[0])).toString(), AVAX.add(xchain.getTxFee()).toString(), "the X balance spent")
})

test("X → C export, C import", async () => {
  // avalanche.js 3.16's C-Chain ID for network 12345 is an earlier
  // avalanchego's local C-Chain; avalanchego v1.14.2, and this node, answer
  // 2owdGq… (docs/local-network.md). It is the one ID the library is told,
  // read from the node as avalanchego's wallets read it.
  assert.equal(cchain.getBlockchainID(), "2CA6j5zYzasynPsFeNoqWkmTCt3VScMvXUZHbfDJ8k3oGzAPtU", "avalanche.js's own C-Chain ID")
  cchain.refreshBlockchainID(await avalanche.Info().getBlockchainID("C"))
  cchain.setBlockchainAlias("C")
  assert.equal(cchain.getBlockchainID(), "2owdGqyG6FFzTHy5qhenDXQcEghvr571KZE3gSfRJERSJinuwC", "the node's C-Chain ID")
  const amount = AVAX.muln(2)
  await exportFromX(amount, cchain.getBlockchainID(), cAddrs)
  // The import pays for its gas at the C-Chain's base fee, in nAVAX
  // rounded up.
  const before = await weiBalance(ewoqEth)
  const baseFee = BigInt(await cchain.getBaseFee()) // wei per gas
  const { utxos } = await cchain.getUTXOs(cAddrs, xchain.getBlockchainID())
  const build = (fee) => cchain.buildImportTx(utxos, ewoqEth, cAddrs, xchain.getBlockchainID(), cAddrs, fee)
  const gas = BigInt(costImportTx(await build(new BN(0))))
  const fee = new BN(((gas * baseFee + 999_999_999n) / 1_000_000_000n).toString())
  const id = await cchain.issueTx((await build(fee)).sign(cchain.keyChain()))
  await atomicAccepted(id)
  const gained = (await weiBalance(ewoqEth)) - before
  assert.equal(gained, BigInt(amount.sub(fee).toString()) * 1_000_000_000n, "the EVM balance gained (wei)")
})

test("X → P export, P import", async () => {
  const amount = AVAX.muln(3)
  await exportFromX(amount, pchain.getBlockchainID(), pAddrs)
  const before = await pBalance(pAddrs[0])
  const { utxos } = await pchain.getUTXOs(pAddrs)
  const tx = await pchain.buildImportTx(utxos, pAddrs, xchain.getBlockchainID(), pAddrs, pAddrs, pAddrs)
  const id = await pchain.issueTx(tx.sign(pchain.keyChain()))
  await committed(id)
  const gained = (await pBalance(pAddrs[0])).sub(before)
  assert.equal(gained.toString(), amount.sub(pchain.getTxFee()).toString(), "the P balance gained")
})
