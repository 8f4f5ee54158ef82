// The X-Chain: its recent transactions (from its transaction index,
// decoded by avm.getTx) and one transaction.
import { avm, index, rest } from '../api.js';
import { navax, num, time } from '../format.js';
import { Chart } from '../chart.jsx';
import { Fields, Id, Loaded, Section, Table, refresh, useLoad } from '../ui.jsx';

// shown is how many of the latest transactions the page lists.
const shown = 20;

// kind names an X-Chain transaction's type by what its JSON holds.
export function kind(u) {
  if (u.destinationChain) return 'Export';
  if (u.sourceChain) return 'Import';
  if (u.initialStates) return 'CreateAsset';
  if (u.ops) return 'Operation';
  return 'Base';
}

// outputs lists where a transaction sends its assets: its outputs and
// exported outputs.
function outputs(u) {
  return [...(u.outputs || []), ...(u.exportedOutputs || []).map((o) => ({ ...o, exported: true }))];
}

async function loadX() {
  const [height, tps, last] = await Promise.all([
    avm('getHeight'),
    rest('/v1/avg_tps/X').catch(() => null),
    index('X', 'tx', 'getLastAccepted').catch(() => null),
  ]);
  let txs = [];
  if (last) {
    const end = BigInt(last.index);
    const start = end >= BigInt(shown - 1) ? end - BigInt(shown - 1) : 0n;
    const containers = await index('X', 'tx', 'getContainerRange', { startIndex: start.toString(), numToFetch: shown, encoding: 'hex' });
    txs = await Promise.all(containers.reverse().map(async (c) => ({ c, tx: (await avm('getTx', { txID: c.id, encoding: 'json' })).tx })));
  }
  return { height: height.height, tps, txs };
}

export function XPage() {
  const state = useLoad(loadX, [], refresh);
  return (
    <main>
      <h1>X-Chain</h1>
      <Loaded state={state}>
        {(d) => (
          <>
            <Fields rows={[['Height', num(d.height), 'height'], ['Transactions', d.txs.length ? num(BigInt(d.txs[0].c.index) + 1n) : '0', 'tx-total']]} />
            <Section title="Recent transactions" id="txs">
              <Table name="txs" head={['Transaction', 'Accepted', 'Type', 'Outputs', 'Amount']}
                rows={d.txs.map(({ c, tx }) => {
                  const outs = outputs(tx.unsignedTx);
                  return {
                    key: c.id,
                    cells: [
                      <Id to={`x/tx/${c.id}`} id={c.id} />,
                      time(Date.parse(c.timestamp) / 1000),
                      kind(tx.unsignedTx),
                      outs.length,
                      navax(outs.reduce((s, o) => s + BigInt(o.output.amount || 0), 0n).toString()),
                    ],
                  };
                })} />
            </Section>
            <Section title="Average throughput" id="tps">
              {d.tps && <Chart name="avg-tps" title="Transactions per second, per UTC day" points={d.tps.results} format={(v) => Number(v).toPrecision(3)} />}
            </Section>
          </>
        )}
      </Loaded>
    </main>
  );
}

export function XTxPage({ id }) {
  const state = useLoad(() => Promise.all([avm('getTx', { txID: id, encoding: 'json' }), avm('getTxStatus', { txID: id })]), [id]);
  return (
    <main>
      <h1>X-Chain transaction</h1>
      <Loaded state={state}>
        {([{ tx }, { status }]) => {
          const u = tx.unsignedTx;
          return (
            <>
              <Fields rows={[
                ['ID', <code>{tx.id}</code>, 'id'],
                ['Status', status, 'status'],
                ['Type', kind(u), 'type'],
                u.destinationChain && ['To chain', <code>{u.destinationChain}</code>, 'destination'],
                u.sourceChain && ['From chain', <code>{u.sourceChain}</code>, 'source'],
                ['Memo', <code>{u.memo}</code>, 'memo'],
              ]} />
              <Table name="outputs" caption="Outputs" head={['Address', 'Asset', 'Amount', 'Exported']}
                rows={outputs(u).map((o, i) => ({
                  key: String(i),
                  cells: [
                    (o.output.addresses || []).map((a) => <div key={a}><Id to={`address/${a}`} id={a} n={10} /></div>),
                    <Id id={o.assetID} />,
                    <span data-field="amount">{navax(o.output.amount)}</span>,
                    o.exported ? 'yes' : 'no',
                  ],
                }))} />
              <Table name="inputs" caption="Inputs" head={['UTXO', 'Amount', 'Imported']}
                rows={[...(u.inputs || []), ...(u.importedInputs || []).map((i) => ({ ...i, imported: true }))].map((i) => ({
                  key: `${i.txID}:${i.outputIndex}`,
                  cells: [<span><Id to={`x/tx/${i.txID}`} id={i.txID} />:{i.outputIndex}</span>, navax(i.input.amount), i.imported ? 'yes' : 'no'],
                }))} />
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
