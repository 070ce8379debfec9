import { Resvg } from '@resvg/resvg-js';
import type { View } from 'vega';
// The project resolves modules the CommonJS way, which does not read vega-lite's `exports`: its types by path.
import type { TopLevelSpec, compile } from 'vega-lite/build/index';

/** The parts of vega and vega-lite used here; both are ES modules only, loaded with a dynamic import. */
interface VegaModule {
  View: typeof View;
  parse: (spec: unknown) => ConstructorParameters<typeof View>[0];
}
interface VegaLiteModule {
  compile: typeof compile;
}

/**
 * A Vega-Lite chart as a PNG, drawn without a browser: vega-lite compiles the spec to Vega, Vega's
 * headless View renders it to SVG, and resvg (Rust, a prebuilt binary from its npm package) turns the
 * SVG into pixels with the machine's fonts. `scale` multiplies the pixel size for a sharper image.
 */
export async function renderChartPng(spec: TopLevelSpec, scale = 2): Promise<Buffer> {
  const vega = (await import('vega')) as VegaModule;
  const vegaLite = (await import('vega-lite' as string)) as VegaLiteModule;
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG(scale);
  view.finalize();
  const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' }, background: 'white' }).render().asPng();
  return Buffer.from(png);
}
