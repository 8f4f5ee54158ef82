// The P-Chain as its own JSON-RPC answers (docs/pchain.md): the oracle the
// metrics suite checks the metrics API's staking and fee series against.

const HOUR = 3600;
const DAY = 86400;

/** The four staking metrics and the field of pvm.getStakingTotals each reads. */
export const STAKING_METRICS = ["validatorCount", "validatorWeight", "delegatorCount", "delegatorWeight"];

export class PChain {
  constructor(nodeURL) {
    this.url = `${nodeURL}/ext/bc/P`;
  }

  /** A JSON-RPC call; throws the error object's message. */
  async call(method, params = {}) {
    const res = await fetch(this.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = await res.json();
    if (body.error) {
      throw new Error(`${method}: ${body.error.message}`);
    }
    return body.result;
  }

  /** The chain's time, unix seconds. */
  async now() {
    const { timestamp } = await this.call("platform.getTimestamp");
    return Math.floor(Date.parse(timestamp) / 1000);
  }

  /** The genesis' time, unix seconds. */
  async genesisTime() {
    const { block } = await this.call("platform.getBlockByHeight", { height: "0", encoding: "json" });
    return Number(block.time);
  }

  /** The validation IDs of an L1's validators, active or not. */
  async validationIDs(subnetID) {
    const { validators } = await this.call("platform.getCurrentValidators", { subnetID });
    return validators.map((v) => v.validationID);
  }

  /**
   * Every staking series, computed from the chain's totals at the end of
   * each hour (at now for the hour in progress): a Map from the subnet ID
   * ("" for the sum over all subnets) to a Map from each metric to its
   * points, newest first. A subnet's series starts at the first hour whose
   * end it exists at.
   */
  async stakingSeries(genesis, now) {
    const hours = [];
    for (let h = Math.floor(now / HOUR); h >= Math.floor(genesis / HOUR); h--) {
      hours.push(h);
    }
    const totals = await Promise.all(
      hours.map((h) => this.call("pvm.getStakingTotals", { time: String(Math.min(h * HOUR + HOUR - 1, now)) })),
    );
    const series = new Map();
    const add = (subnet, metric, timestamp, value) => {
      if (!series.has(subnet)) {
        series.set(subnet, new Map(STAKING_METRICS.map((m) => [m, []])));
      }
      series.get(subnet).get(metric).push({ value, timestamp });
    };
    hours.forEach((h, i) => {
      for (const metric of STAKING_METRICS) {
        let sum = 0;
        for (const s of totals[i].subnets) {
          add(s.subnetID, metric, h * HOUR, Number(s[metric]));
          sum += Number(s[metric]);
        }
        add("", metric, h * HOUR, sum);
      }
    });
    return series;
  }

  /** An L1 validator's fees per day, newest first: {day, fees, cumulativeFees}. */
  async validatorFees(validationID) {
    const { days } = await this.call("pvm.getL1ValidatorFees", { validationID, startTime: "0", endTime: "0" });
    return days.toReversed();
  }

  /**
   * Every primary-network validation period the chain has had, ended ones
   * included: {txID, start, end, addresses}. The current validators (the
   * genesis' among them) from platform.getCurrentValidators; the others
   * from the AddValidatorTx and AddPermissionlessValidatorTx of its
   * blocks, which start at their start or at their block's time when that
   * had passed.
   */
  async validatorPeriods() {
    const periods = new Map();
    const { validators } = await this.call("platform.getCurrentValidators", {});
    for (const v of validators) {
      periods.set(v.txID, { txID: v.txID, start: Number(v.startTime), end: Number(v.endTime), addresses: v.validationRewardOwner.addresses });
    }
    const { height } = await this.call("platform.getHeight");
    for (let h = 1; h <= Number(height); h++) {
      const { block } = await this.call("platform.getBlockByHeight", { height: String(h), encoding: "json" });
      for (const tx of block.txs) {
        const u = tx.unsignedTx;
        if (!u.validator || !("shares" in u)) {
          continue; // not a validator (a delegator has no delegation fee)
        }
        const owner = u.validationRewardsOwner ?? u.rewardsOwner;
        periods.set(tx.id, { txID: tx.id, start: Math.max(u.validator.start, block.time), end: u.validator.end, addresses: owner.addresses });
      }
    }
    return [...periods.values()];
  }

  /** The L1 validators of every L1 as getCurrentValidators lists them: {validationID, nodeID}. */
  async l1Validators(subnetIDs) {
    const out = [];
    for (const subnetID of subnetIDs) {
      const { validators } = await this.call("platform.getCurrentValidators", { subnetID });
      out.push(...validators.map((v) => ({ validationID: v.validationID, nodeID: v.nodeID })));
    }
    return out;
  }

  /** All L1 validators' fees per day since the genesis, newest first. */
  async feeTotals() {
    const { days } = await this.call("pvm.getL1FeeTotals", { startTime: "0", endTime: "0" });
    return days.toReversed();
  }
}

export { DAY, HOUR };
