// Shared pieces of the pages: loading data, links, errors, tables.
import { useEffect, useState } from 'preact/hooks';
import { short } from './format.js';

// refresh is how often, in ms, a page that shows what indexers or a
// running chain change reads it again.
export const refresh = 5000;

// useLoad runs load when deps change, and, with every (ms) given, again
// that long after each answer (never two at once), and answers {data} or
// {error} for the current deps: {} (loading) until their first answer,
// never what earlier deps answered. Each later answer replaces the one
// shown.
export function useLoad(load, deps, every = 0) {
  const key = JSON.stringify(deps);
  const [state, setState] = useState({});
  useEffect(() => {
    let live = true;
    let timer = 0;
    const run = () =>
      load()
        .then(
          (data) => live && setState({ key, data }),
          (error) => live && setState({ key, error }),
        )
        .then(() => {
          if (live && every) timer = setTimeout(run, every);
        });
    run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return state.key === key ? state : {};
}

// Loaded renders children(data) once loaded, the error, or a loading line.
export function Loaded({ state, children }) {
  if (state.error) return <Failure error={state.error} />;
  if (state.data === undefined) return <p class="muted" aria-busy="true">Loading…</p>;
  return children(state.data);
}

// Failure shows what went wrong.
export function Failure({ error }) {
  return <p class="error" role="alert">{String(error.message || error)}</p>;
}

// A is a link inside the explorer: its href is relative to the page's base.
export function A({ to, children, title, ...rest }) {
  return <a href={to} title={title} {...rest}>{children}</a>;
}

// Id links to a page, showing the ID cut short with the whole in its title.
export function Id({ to, id, n }) {
  const text = <code>{short(id, n)}</code>;
  return to ? <A to={to} title={id}>{text}</A> : <span title={id}>{text}</span>;
}

// Fields is a list of labelled values; each value carries data-field so
// that tests and users can find it.
export function Fields({ rows }) {
  return (
    <dl class="fields">
      {rows.filter(Boolean).map(([label, value, field]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd data-field={field}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

// Table renders rows under headers, with a caption; empty says so.
export function Table({ caption, head, rows, empty = 'None.', name }) {
  return (
    <div class="table" data-table={name}>
      <table>
        {caption && <caption>{caption}</caption>}
        <thead>
          <tr>{head.map((h) => <th scope="col" key={h}>{h}</th>)}</tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr><td colSpan={head.length} class="muted">{empty}</td></tr>
          ) : (
            rows.map((r) => <tr key={r.key} data-row={r.key}>{r.cells.map((c, i) => <td key={i}>{c}</td>)}</tr>)
          )}
        </tbody>
      </table>
    </div>
  );
}

// Section is a titled part of a page.
export function Section({ title, children, id }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
