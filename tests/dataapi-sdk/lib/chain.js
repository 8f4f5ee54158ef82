// The C-Chain as its JSON-RPC answers, through viem: wallets that sign
// and send the scenario's transactions, and the reads the suite checks the
// data API against.
import { createPublicClient, encodeDeployData, encodeFunctionData, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** The well-known funded key of the local network (README, "The C-Chain"). */
export const FUNDED_KEY = "0x56289e99c94b6912bfc12adc093c9b51124f0dc54ac7a766b2bc5ccf558d8027";

/** The zero address, as the data API spells it. */
export const ZERO = "0x0000000000000000000000000000000000000000";

// Fees the scenario pays: far above the local chain's base fee, so that
// every transaction is included at once.
const GAS_PRICE = 30_000_000_000n;
const MAX_FEE = 100_000_000_000n;
const TIP = 1_000_000_000n;

/** How long a transaction may take to be mined. */
const RECEIPT_TIMEOUT_MS = 30_000;

/** Connects to the C-Chain of the node at nodeURL. */
export async function connectChain(nodeURL) {
  const rpcURL = `${nodeURL}/ext/bc/C/rpc`;
  // The C-Chain takes batches of at most 40 calls (configs/default.yaml).
  const client = createPublicClient({
    cacheTime: 0, // the scenario reads the head as blocks are made
    transport: http(rpcURL, { batch: { batchSize: 40 }, retryCount: 0, timeout: 30_000 }),
  });
  const chainId = await client.getChainId();
  return new Chain(client, rpcURL, chainId);
}

export class Chain {
  constructor(client, rpcURL, chainId) {
    this.client = client;
    this.rpcURL = rpcURL;
    this.chainId = chainId;
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
   * Sends transactions one after the other, each given as a function that
   * sends it, with automatic block production off, then builds one block
   * with all of them (evm_mine): blocks of several transactions. Returns
   * their receipts.
   */
  async oneBlock(...sends) {
    await this.request("evm_setAutomine", [false]);
    const hashes = [];
    try {
      for (const send of sends) {
        hashes.push(await send());
      }
      await this.request("evm_mine", []);
    } finally {
      await this.request("evm_setAutomine", [true]);
    }
    const receipts = await Promise.all(hashes.map((h) => this.receipt(h)));
    const blocks = new Set(receipts.map((r) => r.blockNumber));
    if (blocks.size !== 1) {
      throw new Error(`transactions meant for one block landed in blocks ${[...blocks].join(", ")}`);
    }
    return receipts;
  }

  /** Waits for the receipt of the transaction a promise sends. */
  async mined(sent) {
    return this.receipt(await sent);
  }

  /** Waits for a transaction's receipt. */
  async receipt(hash) {
    const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
    for (;;) {
      const r = await this.request("eth_getTransactionReceipt", [hash]);
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
   * can be sent for a block not built yet, and failing ones be mined.
   */
  async send({ to = null, value = 0n, data, gas = 300_000n, type = "eip1559" }) {
    if (this.nonce === null) {
      this.nonce = await this.chain.client.getTransactionCount({ address: this.address, blockTag: "pending" });
    }
    const tx = { chainId: this.chain.chainId, type, nonce: this.nonce, to, value, data, gas };
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
