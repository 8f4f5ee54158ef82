// The P-Chain: the primary network's validators, the L1s' validators, and
// the staking and L1 fee series of the metrics API (v2).
import { network, platform, rest, rpc } from '../api.js';
import { navax, num, time } from '../format.js';
import { Chart } from '../chart.jsx';
import { Fields, Id, Loaded, Section, Table, refresh, useLoad } from '../ui.jsx';

// primary is the primary network's subnet ID.
const primary = '11111111111111111111111111111111LpoYY';

// hours is how many hourly points of the staking series the page draws.
const hours = 48;

// days is how many UTC days of the fee series the page draws.
const days = 90;

// series reads a metrics API series, or [] when the module does not answer.
const series = (path) => rest(path).then((r) => r.results, () => []);

async function loadP() {
  const net = await network();
  const since = `startTimestamp=${Math.floor(Date.now() / 1000 / 86400 - days + 1) * 86400}`;
  const [height, ts, validators, subnets, count, fees, cumulative, paying] = await Promise.all([
    platform('getHeight'),
    platform('getTimestamp'),
    platform('getCurrentValidators', {}),
    platform('getSubnets', {}),
    series(`/v2/networks/${net}/metrics/validatorCount?subnetId=${primary}&pageSize=${hours}`),
    series(`/v2/validators/metrics/totalValidatorFeesDaily?${since}`),
    series(`/v2/validators/metrics/totalCumulativeFeesDaily?${since}`),
    series(`/v2/validators/metrics/totalPayingValidatorsDaily?${since}`),
  ]);
  const l1s = await Promise.all(
    subnets.subnets.filter((s) => s.id !== primary).map(async (s) => ({
      subnetID: s.id,
      validators: (await platform('getCurrentValidators', { subnetID: s.id })).validators.filter((v) => v.validationID),
    })),
  );
  return { height: height.height, time: ts.timestamp, validators: validators.validators, l1s: l1s.filter((l) => l.validators.length), count, fees, cumulative, paying };
}

export function PPage() {
  const state = useLoad(loadP, [], refresh);
  return (
    <main>
      <h1>P-Chain</h1>
      <Loaded state={state}>
        {(d) => (
          <>
            <Fields rows={[
              ['Height', num(d.height), 'height'],
              ['Chain time', d.time, 'time'],
              ['Primary network validators', d.validators.length, 'validator-count'],
              ['L1 validators', d.l1s.reduce((n, l) => n + l.validators.length, 0), 'l1-validator-count'],
            ]} />
            <Section title="Primary network validators" id="validators">
              <Table name="validators" head={['Node', 'Stake', 'Start', 'End', 'Delegators', 'Delegation fee']}
                rows={d.validators.map((v) => ({
                  key: v.nodeID,
                  cells: [<code>{v.nodeID}</code>, navax(v.weight), time(v.startTime), time(v.endTime), `${v.delegatorCount} (${navax(v.delegatorWeight)})`, `${Number(v.delegationFee)}%`],
                }))} />
              <Chart name="validator-count" title={`Primary network validators, per hour (last ${hours} hours)`} points={d.count} />
            </Section>
            <Section title="L1 validators" id="l1">
              <Table name="l1-validators" head={['Validation', 'L1 (subnet)', 'Node', 'Weight', 'Balance', 'State']}
                rows={d.l1s.flatMap((l) => l.validators.map((v) => ({
                  key: v.validationID,
                  cells: [<Id to={`p/l1/${v.validationID}`} id={v.validationID} />, <Id id={l.subnetID} />, <code>{v.nodeID}</code>, num(v.weight), navax(v.balance), BigInt(v.balance) > 0n ? 'active' : 'inactive'],
                })))} empty="No L1 validators." />
              <Chart name="fees-daily" title={`Fees paid by all L1 validators, per UTC day (last ${days} days)`} points={d.fees} format={navax} />
              <Chart name="fees-cumulative" title={`Fees paid by all L1 validators, cumulative (last ${days} days)`} points={d.cumulative} format={navax} />
              <Chart name="paying" title={`L1 validators paying, per UTC day (last ${days} days)`} points={d.paying} />
            </Section>
          </>
        )}
      </Loaded>
    </main>
  );
}

// L1Page is one L1 validator with its fee series.
export function L1Page({ id }) {
  const state = useLoad(async () => {
    const [v, daily, cumulative] = await Promise.all([
      rpc('/ext/bc/P', 'platform.getL1Validator', { validationID: id }),
      series(`/v2/validation/${encodeURIComponent(id)}/metrics/validationFeesDaily`),
      series(`/v2/validation/${encodeURIComponent(id)}/metrics/validationCumulativeFeesDaily`),
    ]);
    return { v, daily, cumulative };
  }, [id], refresh);
  return (
    <main>
      <h1>L1 validator</h1>
      <Loaded state={state}>
        {({ v, daily, cumulative }) => (
          <>
            <Fields rows={[
              ['Validation ID', <code>{v.validationID}</code>, 'validation-id'],
              ['L1 (subnet)', <code>{v.subnetID}</code>, 'subnet'],
              ['Node', <code>{v.nodeID}</code>, 'node'],
              ['Weight', num(v.weight), 'weight'],
              ['Balance', navax(v.balance), 'balance'],
              ['Started', time(v.startTime), 'start'],
            ]} />
            <Chart name="validation-fees" title="Fees paid, per UTC day" points={daily} format={navax} />
            <Chart name="validation-cumulative" title="Fees paid, cumulative" points={cumulative} format={navax} />
          </>
        )}
      </Loaded>
    </main>
  );
}
