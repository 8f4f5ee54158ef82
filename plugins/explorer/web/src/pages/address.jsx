// An address. An EVM account: on every EVM chain of the node its native
// balance (from the chain itself, so that one funded in genesis or by an
// atomic import shows it with no transaction), its tokens and NFTs, and
// its paged history (data API). An X-, P- or bare bech32 address: its
// balances on the X- and the P-Chain.
import { useState } from 'preact/hooks';
import { avm, evm, evmChains, platform, rest } from '../api.js';
import { hexNum, navax, num, time, units, wei } from '../format.js';
import { utxoAddress } from '../search.js';
import { Failure, Fields, Id, Loaded, Section, Table, refresh, useLoad } from '../ui.jsx';

// pageSize is how many transactions a page of the history shows.
const pageSize = 10;

export function AddressPage({ address }) {
  const utxo = utxoAddress.exec(address);
  if (utxo) return <UTXOAddress address={address} bech32={utxo[2]} />;
  return <EVMAccount address={address} />;
}

// EVMAccount lists the node's EVM chains, and where the data API saw the
// account take part in a transaction.
function EVMAccount({ address }) {
  const state = useLoad(() => Promise.all([
    evmChains(),
    rest(`/v1/address/${encodeURIComponent(address)}/chains`).then((r) => r.indexedChains, (error) => ({ error })),
  ]), [address], refresh);
  return (
    <main>
      <h1>Address</h1>
      <p><code data-field="address">{address}</code></p>
      <Loaded state={state}>
        {([chains, active]) => (
          <>
            <Fields rows={[['Active on', active.error ? <Failure error={active.error} /> : active.map((c) => c.chainName).join(', ') || 'none', 'chains']]} />
            {chains.length === 0 && <Failure error="the data API lists no EVM chain of this node" />}
            {chains.map((c) => <EVMAddress key={c.blockchainId} chain={c} address={address} />)}
          </>
        )}
      </Loaded>
    </main>
  );
}

// EVMAddress is what one EVM chain knows of the address: its balance
// (the chain's eth_getBalance), then what the data API indexed.
function EVMAddress({ chain, address }) {
  const base = `/v1/chains/${chain.evmChainId}/addresses/${encodeURIComponent(address)}`;
  const balance = useLoad(() => evm(chain, 'eth_getBalance', address, 'latest'), [chain.alias, address], refresh);
  const state = useLoad(() => Promise.all([rest(`${base}/balances:listErc20`), rest(`${base}/balances:listCollectibles?pageSize=100`)]), [base], refresh);
  return (
    <Section title={chain.name} id={`chain-${chain.blockchainId}`}>
      <div data-chain={chain.alias}>
        <Loaded state={balance}>
          {(b) => <Fields rows={[['Balance', wei(hexNum(b), chain.token.symbol), 'native-balance']]} />}
        </Loaded>
        <Loaded state={state}>
          {([bal, nfts]) => (
            <>
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
        <History base={base} alias={chain.alias} />
      </div>
    </Section>
  );
}

// History pages through the address's transactions, newest first.
function History({ base, alias }) {
  const [tokens, setTokens] = useState(['']); // the page tokens of the pages seen, the current last
  const token = tokens[tokens.length - 1];
  const state = useLoad(() => rest(`${base}/transactions?pageSize=${pageSize}${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`), [base, token], refresh);
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

// UTXOAddress shows the balances of the key behind an X-, P- or bare
// bech32 address on both UTXO chains: the same key owns X-… and P-….
function UTXOAddress({ address, bech32 }) {
  const x = useLoad(() => avm('getAllBalances', { address: `X-${bech32}` }), [bech32], refresh);
  const p = useLoad(() => platform('getBalance', { addresses: [`P-${bech32}`] }), [bech32], refresh);
  return (
    <main>
      <h1>Address</h1>
      <p><code data-field="address">{address}</code></p>
      <Section title="X-Chain" id="x">
        <div data-chain="X">
          <Loaded state={x}>
            {(b) => (
              <Table name="balances" caption={`Balances of X-${bech32}`} head={['Asset', 'Balance']}
                rows={b.balances.map((a) => ({ key: a.asset, cells: [a.asset, a.asset === 'AVAX' ? navax(a.balance) : num(a.balance)] }))} />
            )}
          </Loaded>
        </div>
      </Section>
      <Section title="P-Chain" id="p">
        <div data-chain="P">
          <Loaded state={p}>
            {(b) => (
              <Fields rows={[
                ['P-Chain balance', navax(b.balance), 'balance'],
                ['Unlocked', navax(b.unlocked), 'unlocked'],
                ['UTXOs', b.utxoIDs.length, 'utxos'],
              ]} />
            )}
          </Loaded>
        </div>
      </Section>
    </main>
  );
}
