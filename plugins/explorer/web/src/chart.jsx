// A bar chart of a time series, drawn as SVG.
import { time } from './format.js';

const W = 600;
const H = 160;
const PAD = { l: 0, r: 0, t: 8, b: 1 };

// Chart draws points ({timestamp, value}, any order) oldest to newest,
// with the largest value and the newest point named; format writes a value.
export function Chart({ title, points, format = String, name }) {
  const pts = [...points].sort((a, b) => a.timestamp - b.timestamp);
  const max = Math.max(0, ...pts.map((p) => Number(p.value)));
  const last = pts[pts.length - 1];
  const iw = W - PAD.l - PAD.r;
  const ih = H - PAD.t - PAD.b;
  const bw = pts.length ? iw / pts.length : iw;
  return (
    <figure class="chart" data-chart={name} data-first={pts.length ? pts[0].timestamp : undefined}>
      <figcaption>
        {title}
        {last && <span class="muted"> · latest <b data-field={`${name}-latest`}>{format(last.value)}</b> ({time(last.timestamp)}) · {pts.length} points · max {format(max)}</span>}
      </figcaption>
      {pts.length === 0 ? (
        <p class="muted">No points yet.</p>
      ) : (
        <>
        <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${pts.length} points, latest ${format(last.value)}`} preserveAspectRatio="none">
          <line class="axis" x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} />
          {pts.map((p, i) => {
            const h = max > 0 ? (Number(p.value) / max) * ih : 0;
            return (
              <rect key={p.timestamp} x={PAD.l + i * bw + bw * 0.1} width={Math.max(1, bw * 0.8)} y={H - PAD.b - h} height={h}>
                <title>{`${time(p.timestamp)}: ${format(p.value)}`}</title>
              </rect>
            );
          })}
        </svg>
        <div class="range muted"><span>{time(pts[0].timestamp)}</span><span>{time(last.timestamp)}</span></div>
        </>
      )}
    </figure>
  );
}
