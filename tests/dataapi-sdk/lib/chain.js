// The EVM chain as its JSON-RPC answers, through viem: wallets that sign
// and send the scenario's transactions, and the reads the suite checks the
// data API against. The chain is the node's C-Chain, or any EVM chain by
// its URL (DATAAPI_CHAIN_RPC): chainhost's dev methods (evm_mine,
// evm_setAutomine) are used where the chain has them, go-ethereum's
// `--dev` mode (a block as soon as a transaction is pending, dev_ methods
// with `--http.api ...,dev`) otherwise.
import { createPublicClient, encodeDeployData, encodeFunctionData, http, keccak256, numberToHex, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** The well-known funded key of the local network (README, "The C-Chain"). */
export const FUNDED_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";

/** What fundFromDev gives FUNDED_KEY: far more than the scenario spends. */
const DEV_FUNDING = parseEther("1000");

/** The zero address, as the data API spells it. */
export const ZERO = "0x0000000000000000000000000000000000000000";

// Fees the scenario pays: far above the local chain's base fee, so that
// every transaction is included at once.
const GAS_PRICE = 30_000_000_000n;
const MAX_FEE = 100_000_000_000n;
const TIP = 1_000_000_000n;

/** How long a transaction may take to be mined. */
const RECEIPT_TIMEOUT_MS = 30_000;

/**
 * The JSON-RPC URL of the chain the suite runs on: DATAAPI_CHAIN_RPC, or
 * the C-Chain of the node at nodeURL.
 */
export function chainRPC(nodeURL) {
  return process.env.DATAAPI_CHAIN_RPC || `${nodeURL}/ext/bc/C/rpc`;
}

/**
 * Connects to the EVM chain whose JSON-RPC answers at rpcURL. gasScale
 * multiplies the gas the scenario gives its transactions, which is enough
 * on the C-Chain: go-ethereum --dev runs a fork that prices new state
 * several times higher (DATAAPI_GAS_SCALE).
 */
export async function connectChain(rpcURL, { gasScale = 1n } = {}) {
  // The C-Chain takes batches of at most 40 calls (configs/default.yaml).
  const client = createPublicClient({
    cacheTime: 0, // the scenario reads the head as blocks are made
    transport: http(rpcURL, { batch: { batchSize: 40 }, retryCount: 0, timeout: 30_000 }),
  });
  const chainId = await client.getChainId();
  return new Chain(client, rpcURL, chainId, gasScale);
}

/** Groups items by key, in the order of each group's first item (Map.groupBy is Node.js 21's). */
function groupBy(items, key) {
  const groups = new Map();
  for (const x of items) {
    const k = key(x);
    groups.set(k, [...(groups.get(k) ?? []), x]);
  }
  return [...groups.values()];
}

export class Chain {
  constructor(client, rpcURL, chainId, gasScale) {
    this.client = client;
    this.rpcURL = rpcURL;
    this.chainId = chainId;
    this.gasScale = gasScale;
    this.automine = undefined; // whether evm_setAutomine answers: see holdsBlocks
    this.held = null; // transactions signed for the block oneBlock builds, when it sends them itself
  }

  /** A raw JSON-RPC call. */
  request(method, params = []) {
    return this.client.request({ method, params });
  }

  /** A wallet for a private key. */
  wallet(key) {
    return new Wallet(this, key);
  }

  /**
   * Whether the chain has chainhost's evm_setAutomine (it answers it), so
   * that the suite chooses which transactions make a block.
   */
  async holdsBlocks() {
    if (this.automine === undefined) {
      try {
        await this.request("evm_setAutomine", [true]);
        this.automine = true;
      } catch (e) {
        if (e.code !== -32601) {
          throw e;
        }
        this.automine = false; // method not found: go-ethereum --dev
      }
    }
    return this.automine;
  }

  /**
   * Sends transactions, each given as a function that sends it, so that
   * they make one block: blocks of several transactions. Where the chain
   * has evm_setAutomine, they are sent with automatic block production
   * off, then one block is built with all of them (evm_mine). Where it
   * builds a block as soon as a transaction is pending (go-ethereum
   * --dev), each sender's transactions are made pending at once: all but
   * its first are sent first (queued behind the nonce gap), then the first
   * ones, together in one JSON-RPC batch; each sender's transactions then
   * land in one block, different senders' maybe in several. Returns their
   * receipts.
   */
  async oneBlock(...sends) {
    const held = await this.holdsBlocks();
    const hashes = [];
    if (held) {
      await this.request("evm_setAutomine", [false]);
      try {
        for (const send of sends) {
          hashes.push(await send());
        }
        await this.request("evm_mine", []);
      } finally {
        await this.request("evm_setAutomine", [true]);
      }
    } else {
      this.held = [];
      let txs;
      try {
        for (const send of sends) {
          hashes.push(await send());
        }
      } finally {
        [txs, this.held] = [this.held, null];
      }
      const bySender = groupBy(txs, (tx) => tx.from);
      const send = (tx) => this.request("eth_sendRawTransaction", [tx.raw]);
      for (const later of bySender.flatMap((l) => l.slice(1))) {
        await send(later);
      }
      await Promise.all(bySender.map((l) => send(l[0]))); // one batch
    }
    const receipts = await Promise.all(hashes.map((h) => this.receipt(h)));
    const groups = held ? [receipts] : groupBy(receipts, (r) => r.from.toLowerCase());
    for (const group of groups) {
      const blocks = new Set(group.map((r) => r.blockNumber));
      if (blocks.size !== 1) {
        throw new Error(`transactions meant for one block landed in blocks ${[...blocks].join(", ")}`);
      }
    }
    return receipts;
  }

  /**
   * Builds a block without transactions: evm_mine, or on go-ethereum
   * --dev a withdrawal of nothing (dev_addWithdrawal), which makes it
   * build one.
   */
  async emptyBlock() {
    if (await this.holdsBlocks()) {
      return this.request("evm_mine", []);
    }
    const before = await this.client.getBlockNumber();
    await this.request("dev_addWithdrawal", [{ index: "0x0", validatorIndex: "0x0", address: ZERO, amount: "0x0" }]);
    const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
    while ((await this.client.getBlockNumber()) === before) {
      if (Date.now() > deadline) {
        throw new Error(`no block built within ${RECEIPT_TIMEOUT_MS} ms of dev_addWithdrawal`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Gives address DEV_FUNDING from the chain's unlocked dev account
   * (go-ethereum --dev has one, funded: eth_accounts[0]), by
   * eth_sendTransaction.
   */
  async fundFromDev(address) {
    const [dev] = await this.request("eth_accounts", []);
    if (!dev) {
      throw new Error(`${this.rpcURL} has no unlocked account to fund ${address} from (eth_accounts is empty)`);
    }
    const hash = await this.request("eth_sendTransaction", [{ from: dev, to: address, value: numberToHex(DEV_FUNDING) }]);
    const r = await this.receipt(hash);
    if (r.status !== "success") {
      throw new Error(`funding ${address} from ${dev} failed: ${hash}`);
    }
  }

  /** Waits for the receipt of the transaction a promise sends. */
  async mined(sent) {
    return this.receipt(await sent);
  }

  /**
   * Waits for a transaction's receipt. go-ethereum answers an error, not
   * null, until its transaction index is built after it starts.
   */
  async receipt(hash) {
    const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
    for (;;) {
      const r = await this.request("eth_getTransactionReceipt", [hash]).catch((e) => {
        if (e.details === "transaction indexing is in progress") {
          return null;
        }
        throw e;
      });
      if (r) {
        return this.client.getTransactionReceipt({ hash });
      }
      if (Date.now() > deadline) {
        throw new Error(`transaction ${hash} not mined within ${RECEIPT_TIMEOUT_MS} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** The call frames of a transaction, as go-ethereum's call tracer reports them. */
  trace(hash) {
    return this.request("debug_traceTransaction", [hash, { tracer: "callTracer" }]);
  }

  /**
   * eth_call at a block; returns the answer's data, or null when the call
   * fails (reverts, or the contract does not exist yet).
   */
  async call(to, data, blockNumber) {
    try {
      const { data: out } = await this.client.call({ to, data, blockNumber });
      return out ?? "0x";
    } catch {
      return null;
    }
  }
}

export class Wallet {
  constructor(chain, key) {
    this.chain = chain;
    this.account = privateKeyToAccount(key);
    this.address = this.account.address;
    this.nonce = null;
  }

  /**
   * Signs and sends a transaction; returns its hash. type is legacy,
   * eip2930 or eip1559. gas is given, not estimated, so that transactions
   * can be sent for a block not built yet, and failing ones be mined
   * (times the chain's gasScale).
   */
  async send({ to = null, value = 0n, data, gas = 300_000n, type = "eip1559" }) {
    if (this.nonce === null) {
      this.nonce = await this.chain.client.getTransactionCount({ address: this.address, blockTag: "pending" });
    }
    const tx = { chainId: this.chain.chainId, type, nonce: this.nonce, to, value, data, gas: gas * this.chain.gasScale };
    if (type === "eip1559") {
      Object.assign(tx, { maxFeePerGas: MAX_FEE, maxPriorityFeePerGas: TIP });
    } else {
      tx.gasPrice = GAS_PRICE;
      if (type === "eip2930") {
        tx.accessList = [];
      }
    }
    this.nonce++;
    const raw = await this.account.signTransaction(tx);
    if (this.chain.held) {
      this.chain.held.push({ from: this.address, raw }); // oneBlock sends it
      return keccak256(raw);
    }
    return this.chain.request("eth_sendRawTransaction", [raw]);
  }

  /** Sends a call of a contract's function. */
  invoke(contract, address, functionName, args = [], opts = {}) {
    const data = encodeFunctionData({ abi: contract.abi, functionName, args });
    return this.send({ to: address, data, ...opts });
  }

  /** Sends a contract's creation. */
  deploy(contract, args = [], opts = {}) {
    const data = encodeDeployData({ abi: contract.abi, bytecode: contract.bytecode, args });
    return this.send({ data, gas: 3_000_000n, ...opts });
  }
}
