import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ChartSpec } from './chart-data';

const HEIGHT = 180;

function options(spec: ChartSpec, width: number): uPlot.Options {
  return {
    width,
    height: HEIGHT,
    // The chart's words are in its summary; uPlot's legend keys the colours and shows values on hover.
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, min, max) => [0, Math.max(1, max ?? 0, min ?? 0)] } },
    axes: [{ stroke: '#667085', grid: { stroke: '#eef0f4' } }, { stroke: '#667085', grid: { stroke: '#eef0f4' }, label: spec.unit, size: 56 }],
    series: [{}, ...spec.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: true, size: 4 } }))],
  };
}

/**
 * One live chart (uPlot, canvas). The plot is made once per set of series and given new data at
 * each poll; it follows its box's width. uPlot sets its styles through the CSSOM (element.style),
 * which the page's CSP (`style-src 'self'`) allows, unlike style attributes in markup.
 */
export function Chart({ spec }: { spec: ChartSpec }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const shape = `${spec.unit}|${spec.series.map((s) => `${s.label}:${s.color}`).join(',')}`;

  useEffect(() => {
    const el = box.current!;
    const made = new uPlot(options(spec, el.clientWidth || 400), spec.data, el);
    plot.current = made;
    const resized = new ResizeObserver(() => {
      if (el.clientWidth && el.clientWidth !== made.width) made.setSize({ width: el.clientWidth, height: HEIGHT });
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      made.destroy();
      plot.current = undefined;
    };
    // Made again only when the series change (`shape`); new points go through setData below.
  }, [shape]);

  useEffect(() => {
    plot.current?.setData(spec.data);
  }, [spec.data]);

  const id = `chart-${spec.title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <figure class="chart" aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`}>
      <h3 id={`${id}-title`}>{spec.title}</h3>
      <div ref={box} class="chart-plot" role="img" aria-label={`${spec.title} (${spec.unit}) over time`} />
      <figcaption id={`${id}-summary`} class="chart-summary">
        {spec.summary}
      </figcaption>
    </figure>
  );
}
