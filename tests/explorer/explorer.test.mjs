// The explorer in headless Chromium against a running node: every page
// shows what the APIs answer, search routes, the chain page follows new
// blocks without a reload, and nothing logs an error (docs/explorer.md,
// "Tests"). Run by TestExplorer (tests/e2e) twice: EXPLORER_PHASE fresh
// on the node just started, then history once it made the node's history,
// which it passes in EXPLORER_FACTS; and by TestExplorerExternalChain on a
// node whose data module indexes another node's C-Chain by its URL:
// EXPLORER_PHASE external with the chain's WebSocket, then external-poll
// without.
//
// What a page shows comes from indexers (the data and metrics modules),
// chains and the browser, each at its own pace: every comparison of a
// page with an API waits, polling both, until they agree (eventually),
// bounded by patience, never for a set time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { navax, num, time, units, wei } from '../../plugins/explorer/web/src/format.js';

// playwright-core comes from the explorer's own lockfile.
const { chromium } = createRequire(new URL('../../plugins/explorer/web/package.json', import.meta.url))('playwright-core');

const node = process.env.EXPLORER_NODE_URL;
const phase = process.env.EXPLORER_PHASE;
const facts = JSON.parse(process.env.EXPLORER_FACTS || '{}');
const shots = process.env.EXPLORER_SCREENSHOTS;
const chain = `/v1/chains/${facts.evmChainId}`;

// patience bounds each wait for a page or an API to show what is
// asserted: well under a second on an idle machine, many times that on a
// loaded one.
const patience = 60_000;

// pollEvery spaces the attempts of eventually.
const pollEvery = 500;

// eventually runs check (assertions that read the page and the APIs)
// until it passes, and answers what it returns; after patience it throws
// check's last error.
async function eventually(check) {
  const end = Date.now() + patience;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pollEvery));
  }
}

async function rest(path) {
  const res = await fetch(node + path);
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

// rpcAt calls a JSON-RPC method at url, which must answer it.
async function rpcAt(url, method, params = {}) {
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  assert.equal(body.error, undefined, `${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const rpc = (path, method, params) => rpcAt(node + path, method, params);
const evm = (method, ...params) => rpc('/ext/bc/C/rpc', method, params);
const atomic = (method, params) => rpc('/ext/bc/C/avax', `avax.${method}`, params);

let browser;
let page;
const problems = []; // console errors and uncaught exceptions of every page

before(async () => {
  assert.ok(node && phase && facts.evmChainId, 'EXPLORER_NODE_URL, EXPLORER_PHASE and EXPLORER_FACTS are set by TestExplorer');
  await mkdir(shots, { recursive: true });
  browser = await chromium.launch({ executablePath: process.env.EXPLORER_CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  page.setDefaultTimeout(patience);
  page.on('console', (m) => m.type() === 'error' && problems.push(`${page.url()}: console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`${page.url()}: exception: ${e.message}`));
});

after(async () => {
  await browser?.close();
});

// open loads a page of the explorer and waits until everything on it has
// loaded; a page that shows an error fails.
async function open(path) {
  await page.goto(`${node}/explorer/${path}`);
  await settle();
}

async function settle() {
  await page.waitForSelector('main');
  await page.waitForFunction(() => !document.querySelector('[aria-busy]'));
  const errors = await page.locator('main .error').allInnerTexts();
  assert.deepEqual(errors, [], `errors shown on ${page.url()}`);
}

async function shot(name) {
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
}

const field = (name, within = '') => page.locator(`${within} [data-field="${name}"]`).first().innerText();
const rowKeys = (table) => page.locator(`[data-table="${table}"] tbody tr[data-row]`).evaluateAll((rs) => rs.map((r) => r.dataset.row));
const rowText = (table, key) => page.locator(`[data-table="${table}"] tbody tr[data-row="${key}"]`).innerText();
// linked lists the full IDs the links of a table's row carry (their titles).
const linked = (table, key) => page.locator(`[data-table="${table}"] tbody tr[data-row="${key}"] a[title]`).evaluateAll((as) => as.map((a) => a.title));

// aliasOf is an EVM chain's alias, from its RPC URL on the node.
const aliasOf = (c) => /\/ext\/bc\/([^/]+)\/rpc$/.exec(c.rpcUrl)[1];

// rpcOf answers where an EVM chain of /v1/chains answers JSON-RPC and
// its key in the page: the external chain (facts.external), at its own
// node's URL by its name; a chain of the node by its alias.
const rpcOf = (c) => (c.chainName === facts.external ? { url: c.rpcUrl, key: c.chainName } : { url: `${node}/ext/bc/${aliasOf(c)}/rpc`, key: aliasOf(c) });

// sum adds the amounts of a list.
const sum = (list) => list.reduce((s, x) => s + BigInt(x.amount), 0n);

// evmBalances checks that the address page shows address's balance on
// every EVM chain of the node, as the chain answers it.
async function evmBalances(address) {
  const { chains } = await rest('/v1/chains');
  assert.ok(chains.length > 0, 'the node has EVM chains');
  for (const c of chains) {
    const { url, key } = rpcOf(c);
    await eventually(async () => {
      const bal = await rpcAt(url, 'eth_getBalance', [address, 'latest']);
      assert.equal(await field('native-balance', `[data-chain="${key}"]`), wei(BigInt(bal).toString(), c.networkToken.symbol), c.chainName);
    });
  }
}

// utxoBalances checks that the address page shows the X- and P-Chain
// balances of the key behind bech32.
async function utxoBalances(bech32) {
  await eventually(async () => {
    const x = await rpc('/ext/bc/X', 'avm.getAllBalances', { address: `X-${bech32}` });
    assert.ok(x.balances.length > 0);
    for (const a of x.balances) assert.equal(await rowText('balances', a.asset), `${a.asset}\t${a.asset === 'AVAX' ? navax(a.balance) : num(a.balance)}`);
    const p = await rpc('/ext/bc/P', 'platform.getBalance', { addresses: [`P-${bech32}`] });
    assert.equal(await field('balance', '[data-chain="P"]'), navax(p.balance));
    assert.equal(await field('unlocked', '[data-chain="P"]'), navax(p.unlocked));
  });
}

// latestBlocks waits until the chain page shows the chain's head, its
// latest 10 blocks and their transactions as call (the chain's JSON-RPC,
// positional params) answers them, with their ages; it answers the head.
function latestBlocks(call) {
  return eventually(async () => {
    const head = BigInt(await call('eth_blockNumber'));
    assert.equal(await field('height'), num(head));
    const keys = Array.from({ length: 10 }, (_, i) => head - BigInt(i));
    assert.deepEqual(await rowKeys('blocks'), keys.map(String));
    const blocks = await Promise.all(keys.map((n) => call('eth_getBlockByNumber', '0x' + n.toString(16), true)));
    assert.deepEqual(await rowKeys('txs'), blocks.flatMap((b) => b.transactions.map((t) => t.hash)).slice(0, 10));
    for (const n of keys) assert.match((await rowText('blocks', String(n))).split('\t')[2], /^\d+[dhms].* ago$/, `block ${n}`);
    return head;
  });
}

// avgTps waits until the chain page shows the latest average throughput
// the metrics API answers for the chain, and follows new blocks as live
// says.
function avgTps(chainId, live) {
  return eventually(async () => {
    const tps = await rest(`/v1/avg_tps/${chainId}`);
    assert.equal(await field('avg-tps-latest'), Number(tps.results[0].value).toPrecision(3));
    assert.match(await field('live'), live);
  });
}

// newBlockArrives makes a block with call (the chain's evm_mine) and
// checks that the chain page, whose head was head, shows it without a
// reload (the marker set on this document survives).
async function newBlockArrives(call, head) {
  await page.evaluate(() => { window.explorerMarker = true; });
  await call('evm_mine');
  await page.waitForSelector(`[data-table="blocks"] tr[data-row="${head + 1n}"]`);
  assert.equal(await page.evaluate(() => window.explorerMarker), true);
  assert.equal(await field('height'), num(head + 1n));
}

// recordHistory makes the page record every state of the history table
// (its caption and rows) from now on, as the browser renders it.
function recordHistory() {
  return page.evaluate(() => {
    window.historyStates = [];
    new MutationObserver(() => {
      const t = document.querySelector('[data-table="history"]');
      window.historyStates.push(t && { caption: t.querySelector('caption').textContent, keys: [...t.querySelectorAll('tbody tr[data-row]')].map((r) => r.dataset.row) });
    }).observe(document.querySelector('main'), { subtree: true, childList: true, characterData: true });
  });
}

// turnPage clicks a pager button and waits until the history shows want;
// on the way no state may show the rows of the page left under the new
// page's caption.
async function turnPage(button, caption, left, want) {
  await recordHistory();
  await page.getByRole('button', { name: button }).click();
  await eventually(async () => assert.deepEqual(await rowKeys('history'), want));
  const stale = (await page.evaluate(() => window.historyStates)).filter((s) => s && s.caption.includes(caption) && s.keys.join() === left.join());
  assert.deepEqual(stale, [], `${caption} showed the rows of the page before`);
}

describe('explorer on a fresh node', { skip: phase !== 'fresh' }, () => {
  test('chain page: the genesis block shows as genesis', async () => {
    assert.equal(await evm('eth_blockNumber'), '0x0', 'the fresh chain holds only its genesis block');
    await open('chain/C');
    await eventually(async () => {
      assert.deepEqual(await rowKeys('blocks'), ['0']);
      assert.equal((await rowText('blocks', '0')).split('\t')[2], 'genesis');
    });
    assert.equal(await field('height'), '0');
    assert.equal(await field('rate'), 'not enough blocks yet');
  });

  test('block page: the genesis block shows as genesis', async () => {
    const b = await rest(`${chain}/blocks/0`);
    assert.equal(b.blockTimestamp, 0, 'the default genesis has timestamp 0');
    await open('chain/C/block/0');
    assert.equal(await field('time'), 'genesis');
    assert.equal(await field('hash'), b.blockHash);
    assert.equal(await field('atomic-count'), '0');
  });

  test('address page: an account funded in genesis, with no transaction, shows its balance on every EVM chain', async () => {
    assert.equal(await evm('eth_getTransactionCount', facts.funded, 'latest'), '0x0');
    await open(`address/${facts.funded}`);
    await evmBalances(facts.funded);
    assert.equal(await field('chains'), 'none');
    assert.ok(!(await field('native-balance')).startsWith('0 '), 'genesis funds it');
  });

  test('address page: the X- and P-Chain balances of an X-, P- or bare address funded in genesis', async () => {
    const bech32 = facts.utxoFunded.replace(/^P-/, '');
    for (const a of [`X-${bech32}`, `P-${bech32}`, bech32]) {
      await open(`address/${a}`);
      assert.equal(await field('address'), a);
      await utxoBalances(bech32);
    }
  });

  test('no console errors on any page', () => {
    assert.deepEqual(problems, []);
  });
});

describe('explorer after a history', { skip: phase !== 'history' }, () => {
  test('/ redirects to the explorer, whose assets stay under 500 KB compressed', async () => {
    const res = await fetch(node + '/', { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/explorer/');
    const html = await fetch(node + '/explorer/').then((r) => r.text());
    let total = 0;
    for (const path of ['explorer/', ...[...html.matchAll(/(?:href|src)="(assets\/[^"]+)"/g)].map((m) => `explorer/${m[1]}`)]) {
      const r = await fetch(`${node}/${path}`, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(r.status, 200, path);
      assert.equal(r.headers.get('content-encoding'), 'gzip', path);
      total += Number(r.headers.get('content-length'));
    }
    console.log(`page and assets: ${total} bytes compressed`);
    assert.ok(total > 1000 && total < 500 * 1024, `${total} bytes`);
  });

  test('node page', async () => {
    // The first page, with a cold cache: the browser's own timing, and
    // the time until every number on it has loaded (docs/benchmarks.md,
    // "Explorer"; reported, not asserted).
    const started = Date.now();
    await open('');
    const settled = Date.now() - started;
    const nav = await page.evaluate(() => performance.getEntriesByType('navigation')[0].toJSON());
    console.log(`first page: DOMContentLoaded ${Math.round(nav.domContentLoadedEventEnd)} ms, load ${Math.round(nav.loadEventEnd)} ms, every value shown ${settled} ms`);
    const version = await rpc('/ext/info', 'info.getNodeVersion');
    assert.equal(await field('version'), version.version);
    assert.match(await field('network'), /^12345 /);
    assert.match(await field('uptime'), /^\d+[dhms]/);
    // The page reads every 5 s what the chains and indexers say.
    await eventually(async () => {
      const health = await fetch(node + '/ext/health').then((r) => r.json());
      const keys = Object.keys(health.checks).filter((k) => k !== 'host').sort();
      assert.deepEqual((await rowKeys('plugins')).sort(), keys);
      for (const k of keys) assert.match(await rowText('plugins', k), health.checks[k].healthy ? /\thealthy\t/ : /unhealthy/, k);
      assert.match(await rowText('plugins', 'chain/C'), new RegExp(`\t${num(BigInt(await evm('eth_blockNumber')))}\t0 \\(data\\)`));
      assert.match(await rowText('plugins', 'chain/X'), new RegExp(`\t${num(health.checks['chain/X'].details.height)}\t`));
      assert.match(await rowText('plugins', 'chain/P'), new RegExp(`\t${num(health.checks['chain/P'].details.height)}\t`));
      for (const k of keys) assert.match(await rowText('plugins', k), /\t0$/, `${k}: no restarts`);
    });
    await shot('node');
  });

  test('chain page, live', async () => {
    await open('chain/C');
    const head = await latestBlocks(evm);
    // The blocks that hold the import and the export count them beside
    // their EVM transactions.
    for (const n of [facts.importBlock, facts.exportBlock]) assert.equal((await rowText('blocks', n)).split('\t')[3], '0 + 1 atomic', `block ${n}`);
    assert.match(await field('rate'), /blocks per minute/);
    await avgTps('C', /^live$/);
    await shot('chain');
    // A new block arrives over the WebSocket.
    await newBlockArrives(evm, head);
  });

  test('block page', async () => {
    await open(`chain/C/block/${facts.erc20Block}`);
    const b = await rest(`${chain}/blocks/${facts.erc20Block}`);
    assert.equal(await field('hash'), b.blockHash);
    assert.equal(await field('number'), num(b.blockNumber));
    assert.equal(await field('tx-count'), String(b.txCount));
    assert.equal(await field('atomic-count'), '0');
    assert.equal(await field('gas'), `${num(b.gasUsed)} of ${num(b.gasLimit)}`);
    assert.equal(await field('fees'), wei(b.feesSpent));
    assert.equal(await field('time'), time(b.blockTimestamp));
    assert.deepEqual(await rowKeys('txs'), [facts.erc20Tx.toLowerCase()]);
    await shot('block');

    // The genesis block shows as genesis, however long the chain is.
    await open('chain/C/block/0');
    assert.equal(await field('time'), 'genesis');
  });

  test('block page: the atomic transactions of a block (an import, an export)', async () => {
    for (const [height, id] of [[facts.importBlock, facts.importTx], [facts.exportBlock, facts.exportTx]]) {
      await open(`chain/C/block/${height}`);
      const { txs } = await atomic('getBlockAtomicTxs', { blockHeight: height, encoding: 'json' });
      assert.deepEqual(txs.map((t) => t.id), [id]);
      assert.deepEqual(await rowKeys('atomic'), [id]);
      assert.equal(await field('atomic-count'), '1');
      assert.equal(await field('tx-count'), '0');
      const u = txs[0].unsignedTx;
      const row = (await rowText('atomic', id)).split('\t');
      if (u.sourceChain) {
        assert.deepEqual(row.slice(1, 4), ['Import', 'X → this chain', navax(sum(u.outputs).toString())]);
        assert.deepEqual(await linked('atomic', id), [id, facts.importee]);
        assert.equal(row[5], navax((sum(u.importedInputs.map((i) => i.input)) - sum(u.outputs)).toString()));
      } else {
        assert.deepEqual(row.slice(1, 4), ['Export', 'this chain → X', navax(sum(u.exportedOutputs.map((o) => o.output)).toString())]);
        assert.deepEqual(await linked('atomic', id), [id, u.inputs[0].address]);
      }
    }
    await shot('block-atomic');
  });

  test('transaction page: transfers, logs, internal transactions', async () => {
    await open(`chain/C/tx/${facts.erc20Tx}`);
    const tx = await rest(`${chain}/transactions/${facts.erc20Tx}`);
    const n = tx.nativeTransaction;
    assert.equal(await field('hash'), n.txHash);
    assert.equal(await field('status'), 'success');
    assert.equal(await field('method'), `${n.method.methodName} (${n.method.callType})`);
    assert.equal(await field('gas'), `${num(n.gasUsed)} of ${num(n.gasLimit)}`);
    assert.equal(await field('nonce'), n.nonce);
    const t = tx.erc20Transfers[0];
    const transfer = await rowText('transfers', `ERC-20-${t.logIndex}-`);
    assert.ok(transfer.includes(`${units(t.value, t.erc20Token.decimals)} ${t.erc20Token.symbol}`), transfer);
    const receipt = await evm('eth_getTransactionReceipt', facts.erc20Tx);
    assert.equal((await rowKeys('logs')).length, receipt.logs.length);
    assert.ok((await rowText('logs', '0')).includes(receipt.logs[0].topics[0]));
    await shot('transaction');

    await open(`chain/C/tx/${facts.forwardTx}`);
    const fwd = await rest(`${chain}/transactions/${facts.forwardTx}`);
    const it = fwd.internalTransactions[0];
    const row = await rowText('internal', '0');
    assert.ok(row.startsWith(it.internalTxType) && row.includes(wei(it.value)), row);
    assert.equal(await page.locator('[data-table="internal"] a[title]').nth(1).getAttribute('title'), facts.carol);
  });

  test('transaction page: an import and an export', async () => {
    for (const id of [facts.importTx, facts.exportTx]) {
      await open(`chain/C/tx/${id}`);
      const [{ tx }, st] = await Promise.all([atomic('getAtomicTx', { txID: id, encoding: 'json' }), atomic('getAtomicTxStatus', { txID: id })]);
      const u = tx.unsignedTx;
      assert.equal(await field('id'), id);
      assert.equal(await field('status'), 'Accepted');
      assert.equal(await field('block'), num(st.blockHeight));
      assert.equal(await field('other-chain'), 'X');
      if (u.sourceChain) {
        assert.equal(st.blockHeight, facts.importBlock);
        assert.equal(await field('kind'), 'Import');
        assert.equal(await field('amount'), navax(sum(u.outputs).toString()));
        assert.equal(await field('fee'), navax((sum(u.importedInputs.map((i) => i.input)) - sum(u.outputs)).toString()));
        assert.deepEqual(await linked('ins', '0'), [u.importedInputs[0].txID]);
        assert.deepEqual(await linked('outs', '0'), [facts.importee]);
        assert.match(await rowText('outs', '0'), new RegExp(`\t${navax(u.outputs[0].amount)}$`));
        await shot('atomic-import');
      } else {
        assert.equal(st.blockHeight, facts.exportBlock);
        assert.equal(await field('kind'), 'Export');
        assert.deepEqual(await linked('ins', '0'), [u.inputs[0].address]);
        assert.deepEqual(await linked('outs', '0'), u.exportedOutputs[0].output.addresses);
        assert.deepEqual(u.exportedOutputs[0].output.addresses, [`X-${facts.utxoFunded.replace(/^P-/, '')}`]);
        assert.match(await rowText('outs', '0'), new RegExp(`\t${navax(u.exportedOutputs[0].output.amount)}$`));
      }
    }
  });

  test('address page: balances, NFTs, chains, paged history', async () => {
    await open(`address/${facts.bob}`);
    await eventually(async () => {
      const chains = await rest(`/v1/address/${facts.bob}/chains`);
      assert.equal(await field('chains'), chains.indexedChains.map((c) => c.chainName).join(', '));
      const bal = await rest(`${chain}/addresses/${facts.bob}/balances:listErc20`);
      assert.ok((await rowText('erc20', bal.erc20TokenBalances[0].address)).endsWith(units(bal.erc20TokenBalances[0].balance, 18)));
      const nfts = await rest(`${chain}/addresses/${facts.bob}/balances:listCollectibles`);
      assert.deepEqual((await rowKeys('nfts')).sort(), nfts.collectibleBalances.map((c) => `${c.address}-${c.tokenId}`).sort());
      const hist = await rest(`${chain}/addresses/${facts.bob}/transactions?pageSize=10`);
      assert.ok(hist.transactions.length > 0);
      assert.deepEqual(await rowKeys('history'), hist.transactions.map((t) => t.nativeTransaction.txHash));
    });
    await evmBalances(facts.bob);
    await shot('address');

    // The sender's history takes two pages.
    await open(`address/${facts.sender}`);
    const first = await eventually(async () => {
      const first = await rest(`${chain}/addresses/${facts.sender}/transactions?pageSize=10`);
      assert.ok(first.nextPageToken);
      assert.deepEqual(await rowKeys('history'), first.transactions.map((t) => t.nativeTransaction.txHash));
      return first.transactions.map((t) => t.nativeTransaction.txHash);
    });
    const next = await rest(`${chain}/addresses/${facts.sender}/transactions?pageSize=10`);
    const second = await rest(`${chain}/addresses/${facts.sender}/transactions?pageSize=10&pageToken=${encodeURIComponent(next.nextPageToken)}`);
    const secondKeys = second.transactions.map((t) => t.nativeTransaction.txHash);
    assert.ok(secondKeys.length > 0);
    await turnPage('Older', '(page 2)', first, secondKeys);
    await turnPage('Newer', '(page 1)', secondKeys, first);
  });

  test('address page: an account funded only by an import, with no transaction', async () => {
    assert.equal(await evm('eth_getTransactionCount', facts.importee, 'latest'), '0x0');
    await open(`address/${facts.importee}`);
    await evmBalances(facts.importee);
    assert.ok(!(await field('native-balance')).startsWith('0 '), 'the import credits it');
    assert.equal(await field('chains'), 'none');
    assert.equal(await page.locator('[data-table="history"]').count(), 1);
    assert.deepEqual(await rowKeys('history'), []);
    await shot('address-imported');
  });

  test('X-Chain pages', async () => {
    await open('x');
    await eventually(async () => {
      const last = await rpc('/ext/index/X/tx', 'index.getLastAccepted', { encoding: 'hex' });
      const range = await rpc('/ext/index/X/tx', 'index.getContainerRange', { startIndex: 0, numToFetch: 20, encoding: 'hex' });
      assert.deepEqual(await rowKeys('txs'), range.map((c) => c.id).reverse());
      assert.equal((await rowKeys('txs'))[0], last.id);
      assert.equal(await field('height'), num((await rpc('/ext/bc/X', 'avm.getHeight')).height));
    });
    assert.match(await rowText('txs', facts.xTx), /\tBase\t/);
    await shot('xchain');

    await open(`x/tx/${facts.xTx}`);
    const { tx } = await rpc('/ext/bc/X', 'avm.getTx', { txID: facts.xTx, encoding: 'json' });
    assert.equal(await field('status'), 'Accepted');
    const outs = await page.locator('[data-table="outputs"] tbody tr').allInnerTexts();
    assert.equal(outs.length, tx.unsignedTx.outputs.length);
    assert.ok(outs.some((o) => o.includes('1.5 AVAX')), outs.join('\n'));
    assert.equal(await page.locator('[data-table="outputs"] a[title]').first().getAttribute('title'), tx.unsignedTx.outputs[0].output.addresses[0]);
    await shot('xchain-tx');
  });

  test('P-Chain pages: validators, L1 validators, fee series', async () => {
    await open('p');
    await eventually(async () => {
      const primary = await rpc('/ext/bc/P', 'platform.getCurrentValidators', {});
      assert.deepEqual((await rowKeys('validators')).sort(), primary.validators.map((v) => v.nodeID).sort());
      const l1 = await rpc('/ext/bc/P', 'platform.getCurrentValidators', { subnetID: facts.subnet });
      assert.deepEqual((await rowKeys('l1-validators')).sort(), l1.validators.map((v) => v.validationID).sort());
      const row = await rowText('l1-validators', facts.validation);
      assert.ok(row.includes(facts.validationNode) && row.includes('\tactive'), row);
      // Fees grow every second: the chart shows the series' days, from
      // the first it drew.
      const first = await page.locator('[data-chart="fees-daily"]').getAttribute('data-first');
      const fees = await rest(`/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=${first}`);
      assert.ok(fees.results.length > 0 && fees.results.length <= 90, `${fees.results.length} days`);
      assert.equal(await page.locator('[data-chart="fees-daily"] rect').count(), fees.results.length);
      const count = await rest(`/v2/networks/fuji/metrics/validatorCount?subnetId=11111111111111111111111111111111LpoYY&pageSize=48`);
      assert.equal(await page.locator('[data-chart="validator-count"] rect').count(), count.results.length);
      assert.equal(await field('validator-count-latest'), String(count.results[0].value));
    });
    await shot('pchain');

    await open(`p/l1/${facts.validation}`);
    const v = await rpc('/ext/bc/P', 'platform.getL1Validator', { validationID: facts.validation });
    assert.equal(await field('node'), v.nodeID);
    assert.equal(await field('subnet'), v.subnetID);
    assert.equal(await field('weight'), num(v.weight));
    await eventually(async () => {
      const cumulative = await rest(`/v2/validation/${facts.validation}/metrics/validationCumulativeFeesDaily`);
      assert.equal(await page.locator('[data-chart="validation-cumulative"] rect').count(), cumulative.results.length);
    });
    await shot('l1-validator');
  });

  test('search routes to the right page', async () => {
    await open('');
    const bech32 = facts.utxoFunded.replace(/^P-/, '');
    const cases = [
      [facts.bob, `address/${facts.bob}`],
      [facts.erc20Tx, `chain/C/tx/${facts.erc20Tx.toLowerCase()}`],
      [facts.erc20Block, `chain/C/block/${facts.erc20Block}`],
      [facts.erc20BlockHash, `chain/C/block/${facts.erc20BlockHash.toLowerCase()}`],
      [facts.xTx, `x/tx/${facts.xTx}`],
      [facts.importTx, `chain/C/tx/${facts.importTx}`],
      [facts.exportTx, `chain/C/tx/${facts.exportTx}`],
      [facts.xRecipient, `address/${facts.xRecipient}`],
      [bech32, `address/${bech32}`],
      [facts.validation, `p/l1/${facts.validation}`],
    ];
    for (const [q, want] of cases) {
      await page.fill('#q', q);
      await page.press('#q', 'Enter');
      await page.waitForURL(`${node}/explorer/${want}`);
      await settle();
    }
    await page.fill('#q', '0x' + 'ab'.repeat(32));
    await page.press('#q', 'Enter');
    assert.match(await page.locator('[data-field="search-message"]').innerText(), /^Nothing found for/);
  });

  test('keyboard, phone width and dark mode', async () => {
    await open('chain/C');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'chainhost explorer');
    await page.setViewportSize({ width: 390, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await open('');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), true, 'no sideways scroll of the page');
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(18, 20, 23)');
    await shot('node-phone-dark');
  });

  test('no console errors on any page', () => {
    assert.deepEqual(problems, []);
  });
});

// upstream is the external chain as the node's /v1/chains lists it, with
// a call to its JSON-RPC at its own node's URL.
async function upstream() {
  const { chains } = await rest('/v1/chains');
  const c = chains.find((c) => c.chainName === facts.external);
  assert.ok(c, `/v1/chains lists ${facts.external}`);
  return { ...c, call: (method, ...params) => rpcAt(c.rpcUrl, method, params) };
}

describe('explorer of an external chain', { skip: phase !== 'external' }, () => {
  test('/v1/chains lists it at its own node\'s URLs', async () => {
    const c = await upstream();
    assert.equal(c.rpcUrl, facts.upstreamRpc);
    assert.equal(c.wsUrl, facts.upstreamWs);
    assert.equal(c.chainId, String(facts.evmChainId));
  });

  test('node page: the external chain with its health and height', async () => {
    const c = await upstream();
    await open('');
    await eventually(async () => {
      const health = await fetch(node + '/ext/health').then((r) => r.json());
      const keys = Object.keys(health.checks).filter((k) => k !== 'host');
      assert.deepEqual((await rowKeys('plugins')).sort(), [...keys, `external/${facts.external}`].sort());
      const ix = health.checks['module/data'].details.chains[facts.external];
      // The lag of each module that indexes the chain (data, metrics).
      const lags = Object.entries(health.checks).filter(([k, v]) => k.startsWith('module/') && v.details?.chains?.[facts.external]?.lag !== undefined)
        .map(([k, v]) => `${v.details.chains[facts.external].lag} (${k.slice(7)})`);
      assert.ok(lags.length === 2, lags.join(', '));
      const cells = (await rowText('plugins', `external/${facts.external}`)).split('\t');
      assert.deepEqual(cells.slice(0, 5), [facts.external, 'external chain (evm)', ix.error ? `unhealthy: ${ix.status}: ${ix.error}` : 'healthy',
        num(BigInt(await c.call('eth_blockNumber'))), lags.join(', ')]);
    });
    await shot('external-node');
    await page.locator(`[data-table="plugins"] tr[data-row="external/${facts.external}"] a`).click();
    await page.waitForURL(`${node}/explorer/chain/${facts.external}`);
    await settle();
  });

  test('chain page: its blocks from its own node, live over its WebSocket', async () => {
    const c = await upstream();
    await open(`chain/${facts.external}`);
    assert.equal(await field('name'), facts.external);
    assert.equal(await field('evm-chain-id'), String(facts.evmChainId));
    assert.equal(await field('rpc-url'), `another node, at ${c.rpcUrl}`);
    const head = await latestBlocks(c.call);
    await eventually(async () => {
      const health = await fetch(node + '/ext/health').then((r) => r.json());
      const ix = health.checks['module/data'].details.chains[facts.external];
      assert.match(await field('indexed'), new RegExp(`^${num(ix.height)} \\(lag ${ix.lag} blocks`));
    });
    assert.equal(await page.locator('[data-field="internal-txs"]').count(), c.internalTransactionsIndexed === false ? 1 : 0);
    await avgTps(facts.external, /^live$/);
    await shot('external-chain');
    await newBlockArrives(c.call, head);
  });

  test('block page: no atomic transactions', async () => {
    await open(`chain/${facts.external}/block/${facts.erc20Block}`);
    const b = await rest(`${chain}/blocks/${facts.erc20Block}`);
    assert.equal(await field('hash'), b.blockHash);
    assert.equal(await field('number'), num(b.blockNumber));
    assert.equal(await field('tx-count'), String(b.txCount));
    assert.equal(await field('gas'), `${num(b.gasUsed)} of ${num(b.gasLimit)}`);
    assert.equal(await field('time'), time(b.blockTimestamp));
    assert.deepEqual(await rowKeys('txs'), [facts.erc20Tx.toLowerCase()]);
    assert.equal(await page.locator('[data-field="atomic-count"], [data-table="atomic"]').count(), 0);
    await shot('external-block');
  });

  test('transaction page: transfers, logs from its own node, internal transactions', async () => {
    const c = await upstream();
    await open(`chain/${facts.external}/tx/${facts.erc20Tx}`);
    const tx = await rest(`${chain}/transactions/${facts.erc20Tx}`);
    const n = tx.nativeTransaction;
    assert.equal(await field('hash'), n.txHash);
    assert.equal(await field('status'), 'success');
    assert.equal(await field('gas'), `${num(n.gasUsed)} of ${num(n.gasLimit)}`);
    const t = tx.erc20Transfers[0];
    assert.ok((await rowText('transfers', `ERC-20-${t.logIndex}-`)).includes(`${units(t.value, t.erc20Token.decimals)} ${t.erc20Token.symbol}`));
    const receipt = await c.call('eth_getTransactionReceipt', facts.erc20Tx);
    assert.equal((await rowKeys('logs')).length, receipt.logs.length);
    assert.ok((await rowText('logs', '0')).includes(receipt.logs[0].topics[0]));
    await shot('external-transaction');

    await open(`chain/${facts.external}/tx/${facts.forwardTx}`);
    const fwd = await rest(`${chain}/transactions/${facts.forwardTx}`);
    const internal = fwd.internalTransactions || [];
    assert.equal((await rowKeys('internal')).length, internal.length);
    if (internal.length > 0) assert.ok((await rowText('internal', '0')).includes(wei(internal[0].value, c.networkToken.symbol)));
  });

  test('address page: its balance from its own node, tokens and history from the data API', async () => {
    await open(`address/${facts.bob}`);
    await eventually(async () => {
      const chains = await rest(`/v1/address/${facts.bob}/chains`);
      assert.equal(await field('chains'), chains.indexedChains.map((c) => c.chainName).join(', '));
      assert.equal(await field('chains'), facts.external);
      const bal = await rest(`${chain}/addresses/${facts.bob}/balances:listErc20`);
      assert.ok((await rowText('erc20', bal.erc20TokenBalances[0].address)).endsWith(units(bal.erc20TokenBalances[0].balance, 18)));
      const nfts = await rest(`${chain}/addresses/${facts.bob}/balances:listCollectibles`);
      assert.deepEqual((await rowKeys('nfts')).sort(), nfts.collectibleBalances.map((c) => `${c.address}-${c.tokenId}`).sort());
      const hist = await rest(`${chain}/addresses/${facts.bob}/transactions?pageSize=10`);
      assert.ok(hist.transactions.length > 0);
      assert.deepEqual(await rowKeys('history'), hist.transactions.map((t) => t.nativeTransaction.txHash));
    });
    await evmBalances(facts.bob);
    assert.ok(!(await field('native-balance')).startsWith('0 '), 'the scenario sends bob 1 AVAX');
    // Its history links to the external chain's pages.
    await page.locator(`[data-table="history"] tr[data-row="${facts.nativeTx}"] a`).first().click();
    await page.waitForURL(`${node}/explorer/chain/${facts.external}/tx/${facts.nativeTx}`);
    await settle();
    await shot('external-address');
  });

  test('search finds its addresses, transactions and blocks', async () => {
    await open('');
    const cases = [
      [facts.bob, `address/${facts.bob}`],
      [facts.erc20Tx, `chain/${facts.external}/tx/${facts.erc20Tx.toLowerCase()}`],
      [facts.erc20Block, `chain/${facts.external}/block/${facts.erc20Block}`],
      [facts.erc20BlockHash, `chain/${facts.external}/block/${facts.erc20BlockHash.toLowerCase()}`],
    ];
    for (const [q, want] of cases) {
      await page.fill('#q', q);
      await page.press('#q', 'Enter');
      await page.waitForURL(`${node}/explorer/${want}`);
      await settle();
    }
    await page.fill('#q', '0x' + 'ab'.repeat(32));
    await page.press('#q', 'Enter');
    assert.match(await page.locator('[data-field="search-message"]').innerText(), /^Nothing found for/);
  });

  test('no console errors on any page', () => {
    assert.deepEqual(problems, []);
  });
});

describe('explorer of an external chain without a WebSocket', { skip: phase !== 'external-poll' }, () => {
  test('chain page: live by polling its JSON-RPC', async () => {
    const c = await upstream();
    assert.equal(c.wsUrl, undefined);
    await open(`chain/${facts.external}`);
    const head = await latestBlocks(c.call);
    await eventually(async () => assert.match(await field('live'), /^live \(polling every \d+ s\)$/));
    await newBlockArrives(c.call, head);
  });

  test('no console errors on any page', () => {
    assert.deepEqual(problems, []);
  });
});
