// The node: version, network, uptime, and every chain and module with its
// health, height, indexer lag and plugin restarts; then the external
// chains the data module indexes, with their health in its report.
import { evm, evmChains, health, metricsText, platform, rpc } from '../api.js';
import { duration, num } from '../format.js';
import { A, Fields, Loaded, Section, Table, refresh, useLoad } from '../ui.jsx';

// chainPage is the explorer page of a chain, by its VM's name (avalanchego's
// names, which info.getVMs answers).
function chainPage(alias, vm) {
  if (vm === 'evm') return `chain/${alias}`;
  if (vm === 'avm') return 'x';
  if (vm === 'platform') return 'p';
  return '';
}

async function loadNode() {
  const [version, net, vms, report, samples, evmList] = await Promise.all([
    rpc('/ext/info', 'info.getNodeVersion'),
    rpc('/ext/info', 'info.getNetworkID'),
    rpc('/ext/info', 'info.getVMs'),
    health(),
    metricsText(),
    evmChains(),
  ]);
  // The VM of each chain: the P-Chain, where the node runs it, lists the
  // node's other chains with their VM IDs; it is itself the platform VM.
  const vmOf = { P: 'platform' };
  const chains = report.checks['chain/P'] ? await platform('getBlockchains').catch(() => ({ blockchains: [] })) : { blockchains: [] };
  for (const c of chains.blockchains) vmOf[c.name] = (vms.vms[c.vmID] || [''])[0];
  const metric = (name, plugin) => samples.find((s) => s.name === name && s.labels.plugin === plugin);
  const start = samples.find((s) => s.name === 'process_start_time_seconds');
  // The indexers' lag per chain alias, from the modules' health details.
  const lags = {};
  for (const [key, check] of Object.entries(report.checks)) {
    if (!key.startsWith('module/') || !check.details || !check.details.chains) continue;
    for (const [alias, c] of Object.entries(check.details.chains)) {
      if (c.lag !== undefined) (lags[alias] ||= []).push([key.slice(7), c.lag]);
    }
  }
  const rows = [];
  for (const [key, check] of Object.entries(report.checks).sort()) {
    const [kind, name] = key.split('/');
    if (!name) continue;
    const vm = kind === 'chain' ? vmOf[name] || '' : '';
    let height = check.details && check.details.height;
    if (vm === 'evm' && check.healthy) height = BigInt(await evm({ alias: name }, 'eth_blockNumber')).toString();
    rows.push({
      kind, name, vm, healthy: check.healthy, message: check.message, height,
      lag: lags[name] || [],
      up: metric('chainhost_plugin_up', name),
      restarts: (metric('chainhost_plugin_restarts_total', name) || { value: 0 }).value,
    });
  }
  for (const c of evmList.filter((c) => c.external)) rows.push(await externalRow(c, report, lags));
  return { version, networkID: net.networkID, healthy: report.healthy, uptime: start ? Date.now() / 1000 - start.value : undefined, rows };
}

// externalRow is the row of an external chain: its health as the data
// module reports it under the chain's name, its height as its node
// answers it.
async function externalRow(c, report, lags) {
  const data = report.checks['module/data'];
  const ix = (data && data.details && data.details.chains && data.details.chains[c.alias]) || {};
  const height = await evm(c, 'eth_blockNumber').then((h) => BigInt(h).toString(), () => undefined);
  const problem = ix.error || (height === undefined ? `its node at ${c.rpc} does not answer` : '');
  return {
    kind: 'external', name: c.alias, vm: 'evm', healthy: !problem, message: [ix.status, problem].filter(Boolean).join(': '),
    height, lag: lags[c.alias] || [], restarts: '',
  };
}

export function NodePage() {
  const state = useLoad(loadNode, [], refresh);
  return (
    <main>
      <h1>Node</h1>
      <Loaded state={state}>
        {(n) => (
          <>
            <Fields rows={[
              ['Version', n.version.version, 'version'],
              ['Network ID', n.networkID === '12345' ? `${n.networkID} (local)` : n.networkID, 'network'],
              ['Uptime', n.uptime === undefined ? 'unknown' : duration(n.uptime), 'uptime'],
              ['Health', n.healthy ? 'healthy' : 'unhealthy', 'health'],
              ['VM versions', Object.entries(n.version.vmVersions).map(([k, v]) => `${k} ${v}`).join(', '), 'vms'],
            ]} />
            <Section title="Chains and modules" id="plugins">
              <Table name="plugins" head={['Name', 'Kind', 'Health', 'Height', 'Indexer lag (blocks)', 'Restarts']}
                rows={n.rows.map((r) => {
                  const page = r.kind === 'module' ? '' : chainPage(r.name, r.vm);
                  return {
                    key: `${r.kind}/${r.name}`,
                    cells: [
                      page ? <A to={page}>{r.name}</A> : r.name,
                      r.kind === 'module' ? 'module' : `${r.kind === 'external' ? 'external chain' : 'chain'}${r.vm ? ` (${r.vm})` : ''}`,
                      <span class={r.healthy ? 'ok' : 'bad'} data-field="health" title={r.message || ''}>{r.healthy ? 'healthy' : `unhealthy${r.message ? `: ${r.message}` : ''}`}</span>,
                      <span data-field="height">{r.height === undefined ? '' : num(r.height)}</span>,
                      <span data-field="lag">{r.lag.map(([m, l]) => `${l} (${m})`).join(', ')}</span>,
                      <span data-field="restarts">{r.restarts}</span>,
                    ],
                  };
                })} />
            </Section>
          </>
        )}
      </Loaded>
    </main>
  );
}
