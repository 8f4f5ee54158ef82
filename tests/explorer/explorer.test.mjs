// The explorer in headless Chromium against a running node: every page
// shows what the APIs answer, search routes, the chain page follows new
// blocks without a reload, and nothing logs an error (docs/explorer.md,
// "Tests"). Run by TestExplorer (tests/e2e), which makes the node's
// history and passes it in EXPLORER_FACTS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { navax, num, time, units, wei } from '../../plugins/explorer/web/src/format.js';

// playwright-core comes from the explorer's own lockfile.
const { chromium } = createRequire(new URL('../../plugins/explorer/web/package.json', import.meta.url))('playwright-core');

const node = process.env.EXPLORER_NODE_URL;
const facts = JSON.parse(process.env.EXPLORER_FACTS || '{}');
const shots = process.env.EXPLORER_SCREENSHOTS;
const chain = `/v1/chains/${facts.evmChainId}`;

async function rest(path) {
  const res = await fetch(node + path);
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

async function rpc(path, method, params = {}) {
  const res = await fetch(node + path, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  assert.equal(body.error, undefined, `${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}
const evm = (method, ...params) => rpc('/ext/bc/C/rpc', method, params);

let browser;
let page;
const problems = []; // console errors and uncaught exceptions of every page

before(async () => {
  assert.ok(node && facts.sender, 'EXPLORER_NODE_URL and EXPLORER_FACTS are set by TestExplorer');
  await mkdir(shots, { recursive: true });
  browser = await chromium.launch({ executablePath: process.env.EXPLORER_CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
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

const field = (name) => page.locator(`[data-field="${name}"]`).first().innerText();
const rowKeys = (table) => page.locator(`[data-table="${table}"] tbody tr[data-row]`).evaluateAll((rs) => rs.map((r) => r.dataset.row));
const rowText = (table, key) => page.locator(`[data-table="${table}"] tbody tr[data-row="${key}"]`).innerText();

describe('explorer', () => {
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
    const health = await fetch(node + '/ext/health').then((r) => r.json());
    const keys = Object.keys(health.checks).filter((k) => k !== 'host').sort();
    assert.deepEqual((await rowKeys('plugins')).sort(), keys);
    for (const k of keys) assert.match(await rowText('plugins', k), health.checks[k].healthy ? /\thealthy\t/ : /unhealthy/, k);
    assert.match(await rowText('plugins', 'chain/C'), new RegExp(`\t${num(BigInt(await evm('eth_blockNumber')))}\t0 \\(data\\)`));
    assert.match(await rowText('plugins', 'chain/X'), new RegExp(`\t${num(health.checks['chain/X'].details.height)}\t`));
    assert.match(await rowText('plugins', 'chain/P'), new RegExp(`\t${num(health.checks['chain/P'].details.height)}\t`));
    for (const k of keys) assert.match(await rowText('plugins', k), /\t0$/, `${k}: no restarts`);
    await shot('node');
  });

  test('chain page, live', async () => {
    await open('chain/C');
    const head = BigInt(await evm('eth_blockNumber'));
    assert.equal(await field('height'), num(head));
    const keys = await rowKeys('blocks');
    assert.deepEqual(keys, Array.from({ length: 10 }, (_, i) => String(head - BigInt(i))));
    const newest = await evm('eth_getBlockByNumber', '0x' + head.toString(16), true);
    assert.ok((await rowKeys('txs')).includes(newest.transactions[0].hash));
    assert.match(await field('rate'), /blocks per minute/);
    const tps = await rest('/v1/avg_tps/C');
    assert.equal(await field('avg-tps-latest'), Number(tps.results[0].value).toPrecision(3));
    assert.equal(await field('live'), 'live');
    await shot('chain');
    // A new block arrives over the WebSocket: the page shows it without a
    // reload (the marker set on this document survives).
    await page.evaluate(() => { window.explorerMarker = true; });
    await evm('evm_mine');
    await page.waitForSelector(`[data-table="blocks"] tr[data-row="${head + 1n}"]`);
    assert.equal(await page.evaluate(() => window.explorerMarker), true);
    assert.equal(await field('height'), num(head + 1n));
  });

  test('block page', async () => {
    await open(`chain/C/block/${facts.erc20Block}`);
    const b = await rest(`${chain}/blocks/${facts.erc20Block}`);
    assert.equal(await field('hash'), b.blockHash);
    assert.equal(await field('number'), num(b.blockNumber));
    assert.equal(await field('tx-count'), String(b.txCount));
    assert.equal(await field('gas'), `${num(b.gasUsed)} of ${num(b.gasLimit)}`);
    assert.equal(await field('fees'), wei(b.feesSpent));
    assert.equal(await field('time'), time(b.blockTimestamp));
    assert.deepEqual(await rowKeys('txs'), [facts.erc20Tx.toLowerCase()]);
    await shot('block');
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

  test('address page: balances, NFTs, chains, paged history', async () => {
    await open(`address/${facts.bob}`);
    const chains = await rest(`/v1/address/${facts.bob}/chains`);
    assert.equal(await field('chains'), chains.indexedChains.map((c) => c.chainName).join(', '));
    const bal = await rest(`${chain}/addresses/${facts.bob}/balances:listErc20`);
    assert.equal(await field('native-balance'), wei(bal.nativeTokenBalance.balance, bal.nativeTokenBalance.symbol));
    assert.ok((await rowText('erc20', bal.erc20TokenBalances[0].address)).endsWith(units(bal.erc20TokenBalances[0].balance, 18)));
    const nfts = await rest(`${chain}/addresses/${facts.bob}/balances:listCollectibles`);
    assert.deepEqual((await rowKeys('nfts')).sort(), nfts.collectibleBalances.map((c) => `${c.address}-${c.tokenId}`).sort());
    const hist = await rest(`${chain}/addresses/${facts.bob}/transactions?pageSize=10`);
    assert.deepEqual(await rowKeys('history'), hist.transactions.map((t) => t.nativeTransaction.txHash));
    await shot('address');

    // The sender's history takes two pages.
    await open(`address/${facts.sender}`);
    const first = await rest(`${chain}/addresses/${facts.sender}/transactions?pageSize=10`);
    assert.ok(first.nextPageToken);
    assert.deepEqual(await rowKeys('history'), first.transactions.map((t) => t.nativeTransaction.txHash));
    await page.getByRole('button', { name: 'Older' }).click();
    await settle();
    const second = await rest(`${chain}/addresses/${facts.sender}/transactions?pageSize=10&pageToken=${encodeURIComponent(first.nextPageToken)}`);
    assert.deepEqual(await rowKeys('history'), second.transactions.map((t) => t.nativeTransaction.txHash));
    await page.getByRole('button', { name: 'Newer' }).click();
    await settle();
    assert.deepEqual(await rowKeys('history'), first.transactions.map((t) => t.nativeTransaction.txHash));
  });

  test('X-Chain pages', async () => {
    await open('x');
    const last = await rpc('/ext/index/X/tx', 'index.getLastAccepted', { encoding: 'hex' });
    const range = await rpc('/ext/index/X/tx', 'index.getContainerRange', { startIndex: 0, numToFetch: 20, encoding: 'hex' });
    assert.deepEqual(await rowKeys('txs'), range.map((c) => c.id).reverse());
    assert.equal((await rowKeys('txs'))[0], last.id);
    assert.equal(await field('height'), num((await rpc('/ext/bc/X', 'avm.getHeight')).height));
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
    const primary = await rpc('/ext/bc/P', 'platform.getCurrentValidators', {});
    assert.deepEqual((await rowKeys('validators')).sort(), primary.validators.map((v) => v.nodeID).sort());
    const l1 = await rpc('/ext/bc/P', 'platform.getCurrentValidators', { subnetID: facts.subnet });
    assert.deepEqual((await rowKeys('l1-validators')).sort(), l1.validators.map((v) => v.validationID).sort());
    const row = await rowText('l1-validators', facts.validation);
    assert.ok(row.includes(facts.validationNode) && row.includes('\tactive'), row);
    // Fees grow every second: the chart shows the series' days, from the
    // first it drew.
    const first = await page.locator('[data-chart="fees-daily"]').getAttribute('data-first');
    const fees = await rest(`/v2/validators/metrics/totalValidatorFeesDaily?startTimestamp=${first}`);
    assert.ok(fees.results.length > 0 && fees.results.length <= 90, `${fees.results.length} days`);
    assert.equal(await page.locator('[data-chart="fees-daily"] rect').count(), fees.results.length);
    const count = await rest(`/v2/networks/fuji/metrics/validatorCount?subnetId=11111111111111111111111111111111LpoYY&pageSize=48`);
    assert.equal(await page.locator('[data-chart="validator-count"] rect').count(), count.results.length);
    assert.equal(await field('validator-count-latest'), String(count.results[0].value));
    await shot('pchain');

    await open(`p/l1/${facts.validation}`);
    const v = await rpc('/ext/bc/P', 'platform.getL1Validator', { validationID: facts.validation });
    assert.equal(await field('node'), v.nodeID);
    assert.equal(await field('subnet'), v.subnetID);
    assert.equal(await field('weight'), num(v.weight));
    const cumulative = await rest(`/v2/validation/${facts.validation}/metrics/validationCumulativeFeesDaily`);
    assert.equal(await page.locator('[data-chart="validation-cumulative"] rect').count(), cumulative.results.length);
    await shot('l1-validator');
  });

  test('search routes to the right page', async () => {
    await open('');
    const cases = [
      [facts.bob, `address/${facts.bob}`],
      [facts.erc20Tx, `chain/C/tx/${facts.erc20Tx.toLowerCase()}`],
      [facts.erc20Block, `chain/C/block/${facts.erc20Block}`],
      [facts.erc20BlockHash, `chain/C/block/${facts.erc20BlockHash.toLowerCase()}`],
      [facts.xTx, `x/tx/${facts.xTx}`],
      [facts.xRecipient, `address/${facts.xRecipient}`],
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
