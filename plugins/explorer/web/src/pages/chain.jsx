// An EVM chain: its latest blocks and transactions, live as blocks arrive
// over the chain's WebSocket (or, for an external chain without one, by
// polling its JSON-RPC), its block production rate and its average
// throughput per day.
import { useEffect, useState } from 'preact/hooks';
import { chainInfo, evm, health, rest } from '../api.js';
import { blockAge, duration, hexNum, num, wei } from '../format.js';
import { Chart } from '../chart.jsx';
import { blockAtomicTxs } from './atomic.jsx';
import { Failure, Fields, Id, Loaded, Section, Table, refresh, useLoad } from '../ui.jsx';

// shown is how many of the latest blocks the page lists.
const shown = 10;

// pollHeads is how often, in ms, the page asks an external chain without
// a WebSocket for its head.
const pollHeads = 2000;

async function loadChain(alias) {
  const chain = await chainInfo(alias);
  const head = BigInt(await evm(chain, 'eth_blockNumber'));
  const numbers = [];
  for (let n = head; n >= 0n && numbers.length < shown; n--) numbers.push('0x' + n.toString(16));
  const blocks = await Promise.all(numbers.map((n) => evm(chain, 'eth_getBlockByNumber', n, true).then((b) => b && withAtomic(chain, b))));
  return { chain, head, blocks };
}

// loadIndexed reads what the modules made of the chain: its average
// throughput (metrics API) and how far the data API indexed it.
async function loadIndexed(alias) {
  const [tps, report] = await Promise.all([rest(`/v1/avg_tps/${encodeURIComponent(alias)}`).catch(() => null), health()]);
  const data = report.checks['module/data'];
  return { tps, indexer: data && data.details && data.details.chains ? data.details.chains[alias] : undefined };
}

// withAtomic adds to a block the number of atomic transactions it holds:
// a block that holds any commits to them in its 32 bytes of extra data
// (docs/evm.md, "In the block, and every replay of it"); the chain
// lists them. An external chain's are not the node's to list.
async function withAtomic(chain, b) {
  if (chain.external || b.extraData.length !== 2 + 64) return { ...b, atomic: 0 };
  const txs = await blockAtomicTxs(chain.alias, hexNum(b.number)).catch(() => []);
  return { ...b, atomic: txs.length };
}

// rate is the blocks per minute over blocks (newest first), by their
// timestamps; undefined with fewer than two or no time between them. The
// genesis block is left out: its timestamp is the chain's design, not
// when it was made.
function rate(all) {
  const blocks = all.filter((b) => b.number !== '0x0');
  if (blocks.length < 2) return undefined;
  const span = Number(BigInt(blocks[0].timestamp) - BigInt(blocks[blocks.length - 1].timestamp));
  return span > 0 ? ((blocks.length - 1) * 60) / span : undefined;
}

// useHeads follows the chain's new blocks from the block after head on
// (chain and head undefined until loaded) and calls onBlock with each,
// transactions included; it answers how it follows them. The node's own
// chains and an external chain with a wsUrl: eth_subscribe newHeads over
// the WebSocket; an external chain without one: eth_blockNumber every
// pollHeads.
function useHeads(chain, head, onBlock) {
  const [status, setStatus] = useState('connecting');
  useEffect(() => {
    if (!chain) return undefined;
    const block = (call) => call.then((b) => b && withAtomic(chain, b));
    if (chain.external && !chain.ws) return pollBlocks(chain, head, block, onBlock, setStatus);
    const ws = new WebSocket(chain.external ? chain.ws : `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ext/bc/${chain.alias}/ws`);
    let closed = false;
    ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }));
    ws.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.id === 1) {
        setStatus(msg.error ? `subscription refused: ${msg.error.message}` : 'live');
        return;
      }
      if (msg.method === 'eth_subscription' && msg.params && msg.params.result) {
        block(evm(chain, 'eth_getBlockByHash', msg.params.result.hash, true)).then((b) => b && !closed && onBlock(b), () => {});
      }
    };
    ws.onclose = () => !closed && setStatus('disconnected: reload the page to follow new blocks again');
    return () => {
      closed = true;
      ws.close();
    };
  }, [chain && chain.alias]);
  return status;
}

// pollBlocks asks chain for its head every pollHeads (never two asks at
// once) and hands each block after last to onBlock, the newest shown
// ones only; it answers the function that stops it.
function pollBlocks(chain, last, block, onBlock, setStatus) {
  let live = true;
  let timer = 0;
  const poll = async () => {
    try {
      const head = BigInt(await evm(chain, 'eth_blockNumber'));
      const from = head - last > BigInt(shown) ? head - BigInt(shown) + 1n : last + 1n;
      for (let n = from; n <= head && live; n++) {
        const b = await block(evm(chain, 'eth_getBlockByNumber', '0x' + n.toString(16), true));
        if (!b) break;
        if (live) onBlock(b);
        last = n;
      }
      if (live) setStatus(`live (polling every ${pollHeads / 1000} s)`);
    } catch (err) {
      if (live) setStatus(`polling: ${err.message || err}`);
    }
    if (live) timer = setTimeout(poll, pollHeads);
  };
  poll();
  return () => {
    live = false;
    clearTimeout(timer);
  };
}

// indexedTo says how far the data API indexed the chain and, while it
// catches up, at what pace.
function indexedTo(ix) {
  const catchUp = ix.lag > 0 && ix.blocksPerSecond > 0 ? `, catching up at ${Number(ix.blocksPerSecond).toPrecision(3)} blocks per second${ix.etaSeconds > 0 ? `, ${duration(ix.etaSeconds)} left` : ''}` : '';
  return `${num(ix.height)} (lag ${ix.lag} blocks${catchUp})`;
}

export function ChainPage({ alias }) {
  const state = useLoad(() => loadChain(alias), [alias]);
  const indexed = useLoad(() => loadIndexed(alias), [alias], refresh);
  const { indexer, tps } = indexed.data || {};
  const [live, setLive] = useState([]);
  const { chain, head } = state.data || {};
  const status = useHeads(chain, head, (b) => setLive((l) => [b, ...l.filter((x) => x.hash !== b.hash)].slice(0, shown)));
  return (
    <main>
      <h1>{alias === 'C' ? 'C-Chain' : alias}</h1>
      <Loaded state={state}>
        {(d) => {
          const known = new Set(live.map((b) => b.hash));
          const blocks = [...live, ...d.blocks.filter((b) => b && !known.has(b.hash))]
            .sort((a, b) => Number(BigInt(b.number) - BigInt(a.number))).slice(0, shown);
          const r = rate(blocks);
          const txs = blocks.flatMap((b) => b.transactions.map((t) => ({ ...t, blockTime: b.timestamp }))).slice(0, shown);
          return (
            <>
              <Fields rows={[
                ['Name', d.chain.name, 'name'],
                ['EVM chain ID', d.chain.evmChainId, 'evm-chain-id'],
                d.chain.external && ['Run by', <span>another node, at <code>{d.chain.rpc}</code></span>, 'rpc-url'],
                ['Height', num(hexNum(blocks[0].number)), 'height'],
                ['Block production', r === undefined ? 'not enough blocks yet' : `${r.toFixed(2)} blocks per minute`, 'rate'],
                indexer && ['Indexed to', indexedTo(indexer), 'indexed'],
                !d.chain.internalTxs && ['Internal transactions', 'not indexed: the chain\'s node has no tracer', 'internal-txs'],
                ['New blocks', <span class={status === 'live' ? 'ok' : ''}>{status}</span>, 'live'],
              ]} />
              <Section title="Latest blocks" id="blocks">
                <Table name="blocks" head={['Block', 'Hash', 'Age', 'Transactions', 'Gas used']}
                  rows={blocks.map((b) => ({
                    key: hexNum(b.number),
                    cells: [
                      <a href={`chain/${alias}/block/${hexNum(b.number)}`}>{num(hexNum(b.number))}</a>,
                      <Id to={`chain/${alias}/block/${b.hash}`} id={b.hash} />,
                      blockAge(b.number, hexNum(b.timestamp)),
                      b.atomic ? `${b.transactions.length} + ${b.atomic} atomic` : b.transactions.length,
                      num(hexNum(b.gasUsed)),
                    ],
                  }))} />
              </Section>
              <Section title="Latest transactions" id="txs">
                <Table name="txs" head={['Transaction', 'Block', 'From', 'To', 'Value']}
                  rows={txs.map((t) => ({
                    key: t.hash,
                    cells: [
                      <Id to={`chain/${alias}/tx/${t.hash}`} id={t.hash} />,
                      <a href={`chain/${alias}/block/${hexNum(t.blockNumber)}`}>{num(hexNum(t.blockNumber))}</a>,
                      <Id to={`address/${t.from}`} id={t.from} n={6} />,
                      t.to ? <Id to={`address/${t.to}`} id={t.to} n={6} /> : 'contract creation',
                      wei(hexNum(t.value), d.chain.token.symbol),
                    ],
                  }))} />
              </Section>
              <Section title="Average throughput" id="tps">
                <Loaded state={indexed}>
                  {() => (tps ? (
                    <Chart name="avg-tps" title="Transactions per second, per UTC day" points={tps.results} format={(v) => Number(v).toPrecision(3)} />
                  ) : (
                    <Failure error="the metrics API does not answer for this chain" />
                  ))}
                </Loaded>
              </Section>
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
