// The chain metrics of an EVM chain computed from the chain's own
// JSON-RPC (blocks, receipts, call traces): the oracle of the metrics
// conformance suite's chain metrics (docs/metrics-api.md, "Chain
// metrics", says what each is).

const HOUR = 3600;
const DAY = 86400;

/** The topics of the token transfer events: ERC-20/721 Transfer, ERC-1155 TransferSingle and TransferBatch. */
const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62";
const TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb";

const topicAddress = (t) => `0x${t.slice(26)}`.toLowerCase();

/** The intervals: each bucket's first second for a time. */
export const INTERVALS = {
  hour: (t) => t - (t % HOUR),
  day: (t) => t - (t % DAY),
  // Weeks from Monday: the epoch was a Thursday.
  week: (t) => {
    const day = Math.floor(t / DAY);
    return (Math.floor((day + 3) / 7) * 7 - 3) * DAY;
  },
  month: (t) => {
    const d = new Date(t * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000;
  },
};

/** The bucket after the one starting at start. */
const nextBucket = {
  hour: (s) => s + HOUR,
  day: (s) => s + DAY,
  week: (s) => s + 7 * DAY,
  month: (s) => {
    const d = new Date(s * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
  },
};

export const CHAIN_METRICS = [
  "activeAddresses", "activeSenders", "cumulativeTxCount", "cumulativeAddresses", "cumulativeContracts",
  "cumulativeDeployers", "contracts", "deployers", "gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps",
  "avgGasPrice", "maxGasPrice", "feesPaid",
];

export const ROLLING_METRICS = [
  "gasUsed", "txCount", "avgGps", "maxGps", "avgTps", "maxTps", "avgGasPrice", "maxGasPrice", "feesPaid",
  "contracts", "deployers", "activeAddresses", "activeSenders",
];

/** The creators of the contracts a call trace's frames made, the undone ones left out. */
function deployers(frame, out = []) {
  if (frame.error) {
    return out; // it and everything below it undone
  }
  if (frame.type === "CREATE" || frame.type === "CREATE2") {
    out.push(frame.from.toLowerCase());
  }
  for (const c of frame.calls ?? []) {
    deployers(c, out);
  }
  return out;
}

/**
 * Reads blocks 1 to head of chain (lib/chain.js) whole: for each, its
 * time, gas used and transactions with what the metrics take of them.
 */
export async function readBlocks(chain, head) {
  const blocks = [];
  for (let n = 1n; n <= head; n++) {
    const b = await chain.client.getBlock({ blockNumber: n, includeTransactions: true });
    const txs = [];
    for (const tx of b.transactions) {
      const r = await chain.client.getTransactionReceipt({ hash: tx.hash });
      const transfers = [];
      for (const l of r.logs) {
        const [t0, ...t] = l.topics;
        if (t0 === TRANSFER && t.length >= 2) {
          transfers.push([topicAddress(t[0]), topicAddress(t[1])]);
        } else if ((t0 === TRANSFER_SINGLE || t0 === TRANSFER_BATCH) && t.length >= 3) {
          transfers.push([topicAddress(t[1]), topicAddress(t[2])]);
        }
      }
      let made;
      try {
        made = deployers(await chain.trace(tx.hash));
      } catch {
        // A node that traces nothing: the transaction's own creation.
        made = r.contractAddress && r.status === "success" ? [tx.from.toLowerCase()] : [];
      }
      txs.push({ from: tx.from.toLowerCase(), to: tx.to?.toLowerCase(), gasUsed: r.gasUsed, price: r.effectiveGasPrice, transfers, made });
    }
    blocks.push({ time: Number(b.timestamp), gasUsed: b.gasUsed, txs });
  }
  return blocks;
}

/** An empty bucket. */
const empty = () => ({
  blocks: 0, txs: 0, gasUsed: 0n, fees: 0n, prices: 0n, maxPrice: 0n, maxTps: 0, maxGps: 0, since: 0, last: 0,
  active: new Set(), senders: new Set(), deployers: new Set(), contracts: 0, cumulative: null,
});

/** Adds a block to a bucket; prev is the time of the block before it. */
function add(b, blk, prev, cumulative) {
  const secs = Math.max(blk.time - prev, 1);
  if (b.blocks === 0) {
    b.since = prev;
  }
  b.blocks++;
  b.txs += blk.txs.length;
  b.gasUsed += blk.gasUsed;
  b.maxTps = Math.max(b.maxTps, blk.txs.length / secs);
  b.maxGps = Math.max(b.maxGps, Number(blk.gasUsed) / secs);
  b.last = blk.time;
  for (const tx of blk.txs) {
    b.fees += tx.gasUsed * tx.price;
    b.prices += tx.price;
    b.maxPrice = tx.price > b.maxPrice ? tx.price : b.maxPrice;
    b.active.add(tx.from);
    b.senders.add(tx.from);
    if (tx.to) {
      b.active.add(tx.to);
    }
    for (const [from, to] of tx.transfers) {
      b.active.add(from).add(to);
      b.senders.add(from);
    }
    for (const d of tx.made) {
      b.deployers.add(d);
    }
    b.contracts += tx.made.length;
  }
  b.cumulative = { ...cumulative };
}

/** A metric's value in a bucket: a number, as the SDK reads the answer. */
function value(metric, b) {
  const span = Math.max(b.last - b.since, 1);
  switch (metric) {
    case "activeAddresses": return b.active.size;
    case "activeSenders": return b.senders.size;
    case "cumulativeTxCount": return b.cumulative.txs;
    case "cumulativeAddresses": return b.cumulative.addresses;
    case "cumulativeContracts": return b.cumulative.contracts;
    case "cumulativeDeployers": return b.cumulative.deployers;
    case "contracts": return b.contracts;
    case "deployers": return b.deployers.size;
    case "gasUsed": return Number(b.gasUsed);
    case "txCount": return b.txs;
    case "avgGps": return b.blocks === 0 ? 0 : Number(b.gasUsed) / span;
    case "maxGps": return b.maxGps;
    case "avgTps": return b.blocks === 0 ? 0 : b.txs / span;
    case "maxTps": return b.maxTps;
    case "avgGasPrice": return b.txs === 0 ? 0 : Number(b.prices) / b.txs;
    case "maxGasPrice": return Number(b.maxPrice);
    case "feesPaid": return Number(b.fees);
  }
  throw new Error(`unknown metric ${metric}`);
}

/** The metrics computed from a chain's blocks. */
export class ChainMetrics {
  constructor(blocks) {
    this.blocks = blocks;
    this.buckets = {}; // interval -> Map(bucket start -> bucket)
    for (const interval of Object.keys(INTERVALS)) {
      this.buckets[interval] = new Map();
    }
    const cumulative = { txs: 0, addresses: 0, contracts: 0, deployers: 0 };
    const everAddresses = new Set();
    const everDeployers = new Set();
    let prev;
    for (const blk of blocks) {
      for (const tx of blk.txs) {
        for (const a of [tx.from, tx.to, ...tx.transfers.flat()]) {
          if (a && !everAddresses.has(a)) {
            everAddresses.add(a);
            cumulative.addresses++;
          }
        }
        for (const d of tx.made) {
          if (!everDeployers.has(d)) {
            everDeployers.add(d);
            cumulative.deployers++;
          }
        }
        cumulative.contracts += tx.made.length;
      }
      cumulative.txs += blk.txs.length;
      for (const [interval, start] of Object.entries(INTERVALS)) {
        const k = start(blk.time);
        const buckets = this.buckets[interval];
        if (!buckets.has(k)) {
          buckets.set(k, empty());
        }
        add(buckets.get(k), blk, prev ?? blk.time, cumulative);
      }
      prev = blk.time;
    }
  }

  /** A metric's series at an interval, newest first, every bucket from the first block's to the last's. */
  series(metric, interval) {
    const buckets = this.buckets[interval];
    const first = INTERVALS[interval](this.blocks[0].time);
    const last = INTERVALS[interval](this.blocks.at(-1).time);
    const out = [];
    let held = empty();
    held.cumulative = { txs: 0, addresses: 0, contracts: 0, deployers: 0 };
    for (let s = first; s <= last; s = nextBucket[interval](s)) {
      const b = buckets.get(s);
      if (b) {
        held = b;
      }
      const v = metric.startsWith("cumulative") ? value(metric, held) : value(metric, b ?? empty());
      out.push({ value: v, timestamp: s });
    }
    return out.reverse();
  }

  /**
   * The rolling windows of a metric when the hour in progress starts at
   * nowHour: the hour buckets of each window merged.
   */
  rolling(metric, nowHour) {
    const windows = { lastHour: 1, lastDay: 24, lastWeek: 168, lastMonth: 720, last90Days: 2160, lastYear: 8760 };
    const distinct = metric === "activeAddresses" || metric === "activeSenders";
    const out = {};
    for (const [name, hours] of Object.entries(windows)) {
      if (distinct && hours > 168) {
        break;
      }
      out[name] = this.merged(metric, nowHour - (hours - 1) * HOUR, nowHour);
    }
    if (!distinct) {
      out.allTime = this.merged(metric, 0, Infinity);
    }
    return out;
  }

  /** A metric over the hour buckets from from to to. */
  merged(metric, from, to) {
    const m = empty();
    for (const [s, b] of [...this.buckets.hour.entries()].sort((x, y) => x[0] - y[0])) {
      if (s < from || s > to) {
        continue;
      }
      if (m.blocks === 0) {
        m.since = b.since;
      }
      m.blocks += b.blocks;
      m.txs += b.txs;
      m.gasUsed += b.gasUsed;
      m.fees += b.fees;
      m.prices += b.prices;
      m.maxPrice = b.maxPrice > m.maxPrice ? b.maxPrice : m.maxPrice;
      m.maxTps = Math.max(m.maxTps, b.maxTps);
      m.maxGps = Math.max(m.maxGps, b.maxGps);
      m.last = b.last;
      m.contracts += b.contracts;
      for (const k of ["active", "senders", "deployers"]) {
        b[k].forEach((a) => m[k].add(a));
      }
    }
    return value(metric, m);
  }
}
