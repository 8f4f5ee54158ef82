// One transaction of an EVM chain: an EVM transaction (0x hash) with the
// data API's native fields, decoded transfers and internal transactions,
// and the logs of its receipt; or an atomic one (CB58 ID, atomic.jsx).
import { chainInfo, evm, rest } from '../api.js';
import { hexNum, num, time, units, wei } from '../format.js';
import { AtomicTxPage } from './atomic.jsx';
import { Fields, Id, Loaded, Section, Table, useLoad } from '../ui.jsx';

async function loadTx(alias, hash) {
  const chain = await chainInfo(alias);
  const [tx, receipt] = await Promise.all([
    rest(`/v1/chains/${chain.evmChainId}/transactions/${encodeURIComponent(hash)}`),
    evm(chain, 'eth_getTransactionReceipt', hash),
  ]);
  return { chain, tx, logs: receipt ? receipt.logs : [] };
}

const addr = (a) => a && a.address ? <Id to={`address/${a.address}`} id={a.address} n={6} /> : '';

// transfers lists a transaction's token transfers of every standard.
function transfers(tx) {
  const out = [];
  for (const t of tx.erc20Transfers || []) {
    out.push({ kind: 'ERC-20', t, token: t.erc20Token, amount: units(t.value, t.erc20Token.decimals || 0) + ' ' + (t.erc20Token.symbol || '') });
  }
  for (const t of tx.erc721Transfers || []) out.push({ kind: 'ERC-721', t, token: t.erc721Token, amount: `token #${t.erc721Token.tokenId}` });
  for (const t of tx.erc1155Transfers || []) out.push({ kind: 'ERC-1155', t, token: t.erc1155Token, amount: `${t.value} of token #${t.erc1155Token.tokenId}` });
  return out;
}

export function TxPage({ alias, hash }) {
  return hash.startsWith('0x') ? <EVMTxPage alias={alias} hash={hash} /> : <AtomicTxPage alias={alias} id={hash} />;
}

function EVMTxPage({ alias, hash }) {
  const state = useLoad(() => loadTx(alias, hash), [alias, hash]);
  return (
    <main>
      <h1>Transaction</h1>
      <Loaded state={state}>
        {({ chain, tx, logs }) => {
          const n = tx.nativeTransaction;
          const sym = chain.token.symbol;
          return (
            <>
              <Fields rows={[
                ['Hash', <code>{n.txHash}</code>, 'hash'],
                ['Chain', <a href={`chain/${alias}`}>{chain.name}</a>],
                ['Status', n.txStatus === '1' ? 'success' : 'failed', 'status'],
                ['Block', <a href={`chain/${alias}/block/${n.blockNumber}`}>{num(n.blockNumber)}</a>, 'block'],
                ['Time', time(n.blockTimestamp), 'time'],
                ['From', addr(n.from), 'from'],
                ['To', n.to ? addr(n.to) : 'contract creation', 'to'],
                ['Value', wei(n.value, sym), 'value'],
                ['Method', `${n.method.methodName || n.method.methodHash} (${n.method.callType})`, 'method'],
                ['Gas used', `${num(n.gasUsed)} of ${num(n.gasLimit)}`, 'gas'],
                ['Gas price', `${units(n.gasPrice, 9)} gwei`, 'gas-price'],
                ['Fee', wei((BigInt(n.gasUsed) * BigInt(n.gasPrice)).toString(), sym), 'fee'],
                ['Nonce', n.nonce, 'nonce'],
                ['Type', n.txType, 'type'],
              ]} />
              <Section title="Token transfers" id="transfers">
                <Table name="transfers" head={['Standard', 'Token', 'From', 'To', 'Amount']}
                  rows={transfers(tx).map(({ kind, t, token, amount }) => ({
                    key: `${kind}-${t.logIndex}-${token.tokenId || ''}`,
                    cells: [kind, <span>{token.name || ''} <Id to={`address/${token.address}`} id={token.address} n={6} /></span>, addr(t.from), addr(t.to), amount],
                  }))} />
              </Section>
              <Section title="Internal transactions" id="internal">
                <Table name="internal" head={['Type', 'From', 'To', 'Value', 'Reverted']}
                  rows={(tx.internalTransactions || []).map((t, i) => ({
                    key: String(i),
                    cells: [t.internalTxType, addr(t.from), addr(t.to), wei(t.value, sym), t.isReverted ? 'yes' : 'no'],
                  }))} />
              </Section>
              <Section title="Logs" id="logs">
                <Table name="logs" head={['Index', 'Address', 'Topics', 'Data']}
                  rows={logs.map((l) => ({
                    key: hexNum(l.logIndex),
                    cells: [hexNum(l.logIndex), <Id to={`address/${l.address}`} id={l.address} n={6} />,
                      <ol class="topics">{l.topics.map((t) => <li key={t}><code>{t}</code></li>)}</ol>, <code class="wrap">{l.data}</code>],
                  }))} />
              </Section>
              {n.input && n.input !== '0x' && (
                <Section title="Input" id="input"><pre class="wrap">{n.input}</pre></Section>
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
