// The explorer's front end: one page per route, each reading the node's
// public APIs (docs/explorer.md).
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './style.css';
import { resolve } from './search.js';
import { NodePage } from './pages/node.jsx';
import { ChainPage } from './pages/chain.jsx';
import { BlockPage } from './pages/block.jsx';
import { TxPage } from './pages/tx.jsx';
import { AddressPage } from './pages/address.jsx';
import { XPage, XTxPage } from './pages/xchain.jsx';
import { PPage, L1Page } from './pages/pchain.jsx';
import { A } from './ui.jsx';

// base is the path the explorer is served under, with its trailing slash
// (the <base> the module writes into the page).
const base = new URL(document.baseURI).pathname;

// route splits the location below base into its segments.
function route() {
  const path = location.pathname.startsWith(base) ? location.pathname.slice(base.length) : '';
  return path.split('/').filter(Boolean).map(decodeURIComponent);
}

// navigate shows the page of a path relative to base without a reload.
export function navigate(to) {
  history.pushState(null, '', new URL(to, document.baseURI));
  dispatchEvent(new PopStateEvent('popstate'));
}

// page picks the page of a route.
function page(r) {
  switch (r[0]) {
    case undefined:
      return <NodePage />;
    case 'chain':
      if (r[2] === 'block' && r[3]) return <BlockPage alias={r[1]} id={r[3]} />;
      if (r[2] === 'tx' && r[3]) return <TxPage alias={r[1]} hash={r[3]} />;
      if (r[1] && !r[2]) return <ChainPage alias={r[1]} />;
      break;
    case 'address':
      if (r[1]) return <AddressPage address={r[1]} />;
      break;
    case 'x':
      if (r[1] === 'tx' && r[2]) return <XTxPage id={r[2]} />;
      if (!r[1]) return <XPage />;
      break;
    case 'p':
      if (r[1] === 'l1' && r[2]) return <L1Page id={r[2]} />;
      if (!r[1]) return <PPage />;
      break;
  }
  return (
    <main>
      <h1>Not found</h1>
      <p>No explorer page at {location.pathname}. <A to="./">Back to the node</A>.</p>
    </main>
  );
}

// Search takes an address, a transaction hash, a block number or hash
// and goes to its page.
function Search() {
  const [q, setQ] = useState('');
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  async function submit(e) {
    e.preventDefault();
    setBusy(true);
    setMsg('');
    try {
      const to = await resolve(q.trim());
      if (to) {
        setQ('');
        navigate(to);
      } else {
        setMsg(`Nothing found for “${q.trim()}”.`);
      }
    } catch (err) {
      setMsg(String(err.message || err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="search" role="search" onSubmit={submit}>
      <label for="q" class="sr">Search</label>
      <input id="q" name="q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)}
        placeholder="Address, transaction hash, block number or hash" autocomplete="off" spellcheck={false} />
      <button type="submit" disabled={busy}>Search</button>
      {msg && <p class="error" role="alert" data-field="search-message">{msg}</p>}
    </form>
  );
}

function App() {
  const [r, setR] = useState(route());
  useEffect(() => {
    const onPop = () => {
      setR(route());
      window.scrollTo(0, 0);
    };
    // Links inside the explorer change the page without a reload.
    const onClick = (e) => {
      const a = e.target.closest && e.target.closest('a[href]');
      if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
      const url = new URL(a.href);
      if (url.origin !== location.origin || !url.pathname.startsWith(base)) return;
      e.preventDefault();
      history.pushState(null, '', url);
      onPop();
    };
    addEventListener('popstate', onPop);
    document.addEventListener('click', onClick);
    return () => {
      removeEventListener('popstate', onPop);
      document.removeEventListener('click', onClick);
    };
  }, []);
  const key = r.join('/');
  return (
    <>
      <a class="skip" href="#content">Skip to content</a>
      <header>
        <nav aria-label="Explorer">
          <A to="./" class="brand">chainhost explorer</A>
          <A to="./">Node</A>
          <A to="chain/C">C-Chain</A>
          <A to="x">X-Chain</A>
          <A to="p">P-Chain</A>
        </nav>
        <Search />
      </header>
      <div id="content" tabIndex={-1} key={key}>{page(r)}</div>
    </>
  );
}

render(<App />, document.getElementById('app'));
