// One block of an EVM chain: the data API's block, the chain's list of
// its transactions and of its atomic transactions (imports and exports;
// none for an external chain).
import { chainInfo, evm, rest } from '../api.js';
import { blockTime, hexNum, num, units, wei } from '../format.js';
import { AtomicTable, blockAtomicTxs } from './atomic.jsx';
import { Failure, Fields, Id, Loaded, Section, Table, useLoad } from '../ui.jsx';

async function loadBlock(alias, id) {
  const chain = await chainInfo(alias);
  const block = await rest(`/v1/chains/${chain.evmChainId}/blocks/${encodeURIComponent(id)}`);
  const [full, atomic] = await Promise.all([
    evm(chain, 'eth_getBlockByHash', block.blockHash, true),
    chain.external ? null : blockAtomicTxs(alias, block.blockNumber).catch((error) => ({ error })),
  ]);
  return { chain, block, txs: full ? full.transactions : [], atomic };
}

export function BlockPage({ alias, id }) {
  const state = useLoad(() => loadBlock(alias, id), [alias, id]);
  return (
    <main>
      <h1>Block {/^\d+$/.test(id) ? num(id) : ''}</h1>
      <Loaded state={state}>
        {({ chain, block: b, txs, atomic }) => (
          <>
            <Fields rows={[
              ['Chain', <a href={`chain/${alias}`}>{chain.name}</a>],
              ['Number', num(b.blockNumber), 'number'],
              ['Hash', <code>{b.blockHash}</code>, 'hash'],
              ['Parent', BigInt(b.blockNumber) > 0n ? <a href={`chain/${alias}/block/${BigInt(b.blockNumber) - 1n}`}><code>{b.parentHash}</code></a> : <code>{b.parentHash}</code>, 'parent'],
              ['Time', blockTime(b.blockNumber, b.blockTimestamp), 'time'],
              ['Transactions', b.txCount, 'tx-count'],
              atomic && !atomic.error && ['Atomic transactions', atomic.length, 'atomic-count'],
              ['Gas used', `${num(b.gasUsed)} of ${num(b.gasLimit)}`, 'gas'],
              ['Base fee', `${units(b.baseFee, 9)} gwei`, 'base-fee'],
              ['Fees spent', wei(b.feesSpent, chain.token.symbol), 'fees'],
              ['Transactions up to this block', num(b.cumulativeTransactions), 'cumulative'],
            ]} />
            <Section title="Transactions" id="txs">
              <Table name="txs" head={['Transaction', 'From', 'To', 'Value']}
                rows={txs.map((t) => ({
                  key: t.hash,
                  cells: [
                    <Id to={`chain/${alias}/tx/${t.hash}`} id={t.hash} />,
                    <Id to={`address/${t.from}`} id={t.from} n={6} />,
                    t.to ? <Id to={`address/${t.to}`} id={t.to} n={6} /> : 'contract creation',
                    wei(hexNum(t.value), chain.token.symbol),
                  ],
                }))} />
            </Section>
            {atomic && (
              <Section title="Atomic transactions (imports and exports)" id="atomic">
                {atomic.error ? <Failure error={atomic.error} /> : <AtomicTable alias={alias} txs={atomic} />}
              </Section>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
