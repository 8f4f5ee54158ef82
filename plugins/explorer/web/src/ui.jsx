// Shared pieces of the pages: loading data, links, errors, tables.
import { useEffect, useState } from 'preact/hooks';
import { short } from './format.js';

// useLoad runs load when deps change (and every refresh ms when given),
// and answers {data, error}; a later answer replaces an earlier one.
export function useLoad(load, deps, refresh = 0) {
  const [state, setState] = useState({});
  useEffect(() => {
    let live = true;
    const run = () =>
      load().then(
        (data) => live && setState({ data }),
        (error) => live && setState({ error }),
      );
    setState({});
    run();
    const timer = refresh ? setInterval(run, refresh) : 0;
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, deps);
  return state;
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
