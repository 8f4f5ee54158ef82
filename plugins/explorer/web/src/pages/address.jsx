// An address: on EVM chains its balances, NFTs, paged history and the
// chains it is active on (data API); on the X- and P-Chain its balances.
import { useState } from 'preact/hooks';
import { avm, platform, rest } from '../api.js';
import { navax, num, time, units, wei } from '../format.js';
import { Fields, Id, Loaded, Section, Table, useLoad } from '../ui.jsx';

// pageSize is how many transactions a page of the history shows.
const pageSize = 10;

export function AddressPage({ address }) {
  if (/^[XP]-/.test(address)) return <UTXOAddress address={address} />;
  const state = useLoad(() => rest(`/v1/address/${encodeURIComponent(address)}/chains`), [address]);
  return (
    <main>
      <h1>Address</h1>
      <p><code data-field="address">{address}</code></p>
      <Loaded state={state}>
        {({ indexedChains }) => (
          <>
            <Fields rows={[['Active on', indexedChains.length ? indexedChains.map((c) => c.chainName).join(', ') : 'no chain of this node', 'chains']]} />
            {indexedChains.map((c) => <EVMAddress key={c.chainId} chain={c} address={address} />)}
          </>
        )}
      </Loaded>
    </main>
  );
}

// EVMAddress is what one EVM chain knows of the address.
function EVMAddress({ chain, address }) {
  const base = `/v1/chains/${chain.chainId}/addresses/${encodeURIComponent(address)}`;
  const alias = (/\/ext\/bc\/([^/]+)\/rpc$/.exec(chain.rpcUrl) || [])[1] || chain.chainId;
  const state = useLoad(() => Promise.all([rest(`${base}/balances:listErc20`), rest(`${base}/balances:listCollectibles?pageSize=100`)]), [base]);
  return (
    <Section title={chain.chainName} id={`chain-${chain.chainId}`}>
      <Loaded state={state}>
        {([bal, nfts]) => (
          <>
            <Fields rows={[['Balance', wei(bal.nativeTokenBalance.balance, bal.nativeTokenBalance.symbol), 'native-balance']]} />
            <Table name="erc20" caption="Tokens" head={['Token', 'Contract', 'Balance']}
              rows={bal.erc20TokenBalances.map((t) => ({
                key: t.address,
                cells: [`${t.name} (${t.symbol})`, <Id to={`address/${t.address}`} id={t.address} n={6} />, units(t.balance, t.decimals)],
              }))} />
            <Table name="nfts" caption="NFTs" head={['Collection', 'Standard', 'Token ID', 'Amount']}
              rows={nfts.collectibleBalances.map((t) => ({
                key: `${t.address}-${t.tokenId}`,
                cells: [<span>{t.name || ''} <Id to={`address/${t.address}`} id={t.address} n={6} /></span>, t.ercType, t.tokenId, t.balance || '1'],
              }))} />
          </>
        )}
      </Loaded>
      <History base={base} alias={alias} />
    </Section>
  );
}

// History pages through the address's transactions, newest first.
function History({ base, alias }) {
  const [tokens, setTokens] = useState(['']); // the page tokens of the pages seen, the current last
  const token = tokens[tokens.length - 1];
  const state = useLoad(() => rest(`${base}/transactions?pageSize=${pageSize}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`), [base, token]);
  return (
    <Loaded state={state}>
      {(page) => (
        <>
          <Table name="history" caption={`Transactions (page ${tokens.length})`} head={['Transaction', 'Block', 'Time', 'Method', 'From', 'To', 'Value']}
            rows={page.transactions.map(({ nativeTransaction: n }) => ({
              key: n.txHash,
              cells: [
                <Id to={`chain/${alias}/tx/${n.txHash}`} id={n.txHash} />,
                <a href={`chain/${alias}/block/${n.blockNumber}`}>{num(n.blockNumber)}</a>,
                time(n.blockTimestamp),
                n.method.methodName || n.method.methodHash,
                <Id to={`address/${n.from.address}`} id={n.from.address} n={6} />,
                n.to ? <Id to={`address/${n.to.address}`} id={n.to.address} n={6} /> : 'contract creation',
                wei(n.value, ''),
              ],
            }))} />
          <div class="pager">
            <button type="button" disabled={tokens.length === 1} onClick={() => setTokens(tokens.slice(0, -1))}>Newer</button>
            <button type="button" disabled={!page.nextPageToken} onClick={() => setTokens([...tokens, page.nextPageToken])}>Older</button>
          </div>
        </>
      )}
    </Loaded>
  );
}

// UTXOAddress shows an X- or P-Chain address's balances.
function UTXOAddress({ address }) {
  const x = address.startsWith('X-');
  const state = useLoad(() => (x ? avm('getAllBalances', { address }) : platform('getBalance', { addresses: [address] })), [address]);
  return (
    <main>
      <h1>Address</h1>
      <p><code data-field="address">{address}</code></p>
      <Loaded state={state}>
        {(b) => x ? (
          <Table name="balances" caption="X-Chain balances" head={['Asset', 'Balance']}
            rows={b.balances.map((a) => ({ key: a.asset, cells: [a.asset, a.asset === 'AVAX' ? navax(a.balance) : num(a.balance)] }))} />
        ) : (
          <Fields rows={[
            ['P-Chain balance', navax(b.balance), 'balance'],
            ['Unlocked', navax(b.unlocked), 'unlocked'],
            ['UTXOs', b.utxoIDs.length, 'utxos'],
          ]} />
        )}
      </Loaded>
    </main>
  );
}
