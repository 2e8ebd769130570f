// A line plot written as a PNG without a dependency: series of (x, y) points on a white canvas,
// light grid lines at round steps, the axes' extremes and the grid's values in a 3x5 digit font.
import zlib from "node:zlib";

const FONT = {
  0: "111101101101111",
  1: "010110010010111",
  2: "111001111100111",
  3: "111001111001111",
  4: "101101111001001",
  5: "111100111001111",
  6: "111100111101111",
  7: "111001001001001",
  8: "111101111101111",
  9: "111101111001111",
  ".": "000000000000010",
  "-": "000000111000000",
};

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** RGB pixels (width * height * 3 bytes) as a PNG file. */
export function encodePng(width, height, rgb) {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) rgb.copy(rows, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const niceStep = (span, lines) => {
  const raw = span / lines;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((step) => step >= raw);
};

/**
 * `series`: [{points: [[x, y]...], color: [r, g, b]}]. The y axis starts at 0 unless a value is
 * below it; grid lines every round step of each axis, labelled with their value.
 */
export function plotPng(series, { width = 800, height = 400 } = {}) {
  const rgb = Buffer.alloc(width * height * 3, 255);
  const set = (x, y, [r, g, b]) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const at = (Math.round(y) * width + Math.round(x)) * 3;
    rgb[at] = r;
    rgb[at + 1] = g;
    rgb[at + 2] = b;
  };
  const text = (x, y, value, color = [0, 0, 0]) => {
    for (const [i, char] of [...value].entries()) {
      const glyph = FONT[char];
      if (!glyph) continue;
      for (let p = 0; p < 15; p++)
        if (glyph[p] === "1")
          for (const d of [
            [0, 0],
            [1, 0],
            [0, 1],
            [1, 1],
          ])
            set(x + i * 8 + (p % 3) * 2 + d[0], y + Math.floor(p / 3) * 2 + d[1], color);
    }
  };
  const all = series.flatMap((s) => s.points);
  const xMax = Math.max(1, ...all.map(([x]) => x));
  const yMin = Math.min(0, ...all.map(([, y]) => y));
  const yMax = Math.max(yMin + 1, ...all.map(([, y]) => y)) * 1.05;
  const left = 60;
  const bottom = height - 25;
  const px = (x) => left + (x / xMax) * (width - left - 10);
  const py = (y) => bottom - ((y - yMin) / (yMax - yMin)) * (bottom - 10);
  const grey = [225, 225, 225];
  const yStep = niceStep(yMax - yMin, 8);
  for (let y = Math.ceil(yMin / yStep) * yStep; y <= yMax; y += yStep) {
    for (let x = left; x < width - 10; x++) set(x, py(y), grey);
    text(4, py(y) - 5, String(+y.toFixed(3)));
  }
  const xStep = niceStep(xMax, 10);
  for (let x = 0; x <= xMax; x += xStep) {
    for (let y = 10; y <= bottom; y++) set(px(x), y, grey);
    text(px(x) - 8, bottom + 8, String(+x.toFixed(3)));
  }
  for (let x = left; x < width - 10; x++) set(x, bottom, [0, 0, 0]);
  for (let y = 10; y <= bottom; y++) set(left, y, [0, 0, 0]);
  for (const { points, color } of series) {
    for (let i = 1; i < points.length; i++) {
      const [x0, y0, x1, y1] = [px(points[i - 1][0]), py(points[i - 1][1]), px(points[i][0]), py(points[i][1])];
      const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
      for (let s = 0; s <= steps; s++)
        for (const d of [0, 1]) set(x0 + ((x1 - x0) * s) / steps, y0 + ((y1 - y0) * s) / steps + d, color);
    }
  }
  return encodePng(width, height, rgb);
}
