// The atomic transactions of an EVM chain (docs/evm.md, "Atomic
// transactions"): the imports and exports a block holds beside its EVM
// transactions, and one of them; read in JSON from the chain's atomic API.
import { atomic, chainInfo, chainNames } from '../api.js';
import { navax, num } from '../format.js';
import { Fields, Id, Loaded, Section, Table, useLoad } from '../ui.jsx';

// blockAtomicTxs lists the atomic transactions of a block, described.
export async function blockAtomicTxs(alias, height) {
  const [{ txs }, names] = await Promise.all([
    atomic(alias, 'getBlockAtomicTxs', { blockHeight: String(height), encoding: 'json' }),
    chainNames(),
  ]);
  return txs.map((t) => describe(t, names));
}

const sum = (list) => list.reduce((s, x) => s + BigInt(x.amount), 0n);

// describe reads an atomic transaction's JSON: its kind, the other chain
// (by alias where the node knows it), what it takes (ins) and gives
// (outs), each with the addresses and amounts in nAVAX, and the fee it
// burns. An import takes UTXOs of the other chain and credits EVM
// accounts; an export debits EVM accounts and gives UTXOs on the other.
export function describe(tx, names) {
  const u = tx.unsignedTx;
  const name = (id) => names.get(id) || id;
  let d;
  if (u.sourceChain) {
    d = {
      kind: 'Import', chain: name(u.sourceChain),
      ins: u.importedInputs.map((i) => ({ utxo: `${i.txID}:${i.outputIndex}`, txID: i.txID, amount: i.input.amount })),
      outs: u.outputs.map((o) => ({ addresses: [o.address], amount: o.amount })),
    };
  } else {
    d = {
      kind: 'Export', chain: name(u.destinationChain),
      ins: u.inputs.map((i) => ({ addresses: [i.address], amount: i.amount, nonce: i.nonce })),
      outs: u.exportedOutputs.map((o) => ({ addresses: o.output.addresses, amount: o.output.amount })),
    };
  }
  return { ...d, id: tx.id, moved: sum(d.outs).toString(), fee: (sum(d.ins) - sum(d.outs)).toString() };
}

// direction writes where a transaction moves funds, from this chain's
// view.
const direction = (d) => (d.kind === 'Import' ? `${d.chain} → this chain` : `this chain → ${d.chain}`);

// addressLink links an address to its page: EVM accounts, and the owners
// of UTXOs on another chain (X-…, P-…).
const addressLink = (a) => <div key={a}><Id to={`address/${a}`} id={a} n={8} /></div>;

// AtomicTable lists a block's atomic transactions.
export function AtomicTable({ alias, txs }) {
  return (
    <Table name="atomic" head={['Transaction', 'Kind', 'Moves', 'Amount', 'Addresses', 'Fee']}
      rows={txs.map((d) => ({
        key: d.id,
        cells: [
          <Id to={`chain/${alias}/tx/${d.id}`} id={d.id} />,
          d.kind,
          direction(d),
          navax(d.moved),
          (d.kind === 'Import' ? d.outs : d.ins).flatMap((x) => x.addresses).map(addressLink),
          navax(d.fee),
        ],
      }))} empty="No atomic transactions." />
  );
}

async function loadAtomicTx(alias, id) {
  const chain = await chainInfo(alias);
  if (chain.external) throw new Error(`${chain.name} is a chain of another node: it has no atomic transactions here`);
  const [{ tx }, { status, blockHeight }, names] = await Promise.all([
    atomic(alias, 'getAtomicTx', { txID: id, encoding: 'json' }),
    atomic(alias, 'getAtomicTxStatus', { txID: id }),
    chainNames(),
  ]);
  return { chain, d: describe(tx, names), status, blockHeight };
}

// AtomicTxPage is one import or export of an EVM chain.
export function AtomicTxPage({ alias, id }) {
  const state = useLoad(() => loadAtomicTx(alias, id), [alias, id]);
  return (
    <main>
      <h1>Atomic transaction</h1>
      <Loaded state={state}>
        {({ chain, d, status, blockHeight }) => (
          <>
            <Fields rows={[
              ['ID', <code>{d.id}</code>, 'id'],
              ['Chain', <a href={`chain/${alias}`}>{chain.name}</a>],
              ['Status', status, 'status'],
              blockHeight !== undefined && ['Block', <a href={`chain/${alias}/block/${blockHeight}`}>{num(blockHeight)}</a>, 'block'],
              ['Kind', d.kind, 'kind'],
              [d.kind === 'Import' ? 'From chain' : 'To chain', d.chain, 'other-chain'],
              ['Amount', navax(d.moved), 'amount'],
              ['Fee', navax(d.fee), 'fee'],
            ]} />
            <Section title={d.kind === 'Import' ? `Spends (UTXOs exported by ${d.chain})` : 'Debits (EVM accounts)'} id="ins">
              <Table name="ins" head={d.kind === 'Import' ? ['UTXO', 'Amount'] : ['Account', 'Amount', 'Nonce']}
                rows={d.ins.map((i, n) => ({
                  key: String(n),
                  cells: d.kind === 'Import'
                    ? [d.chain === 'X' ? <span><Id to={`x/tx/${i.txID}`} id={i.txID} />:{i.utxo.split(':')[1]}</span> : <code>{i.utxo}</code>, navax(i.amount)]
                    : [i.addresses.map(addressLink), navax(i.amount), i.nonce],
                }))} />
            </Section>
            <Section title={d.kind === 'Import' ? 'Credits (EVM accounts)' : `Gives (UTXOs on ${d.chain})`} id="outs">
              <Table name="outs" head={['Owners', 'Amount']}
                rows={d.outs.map((o, n) => ({ key: String(n), cells: [o.addresses.map(addressLink), navax(o.amount)] }))} />
            </Section>
          </>
        )}
      </Loaded>
    </main>
  );
}
