/** The value of one series of a scrape (Prometheus' text format), or undefined when it is not there. */
export const valueOf = (text: string, series: string) => {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

/** The values of several series of a scrape, by series: to compare with what a test expects, all at once. */
export const valuesOf = (text: string, series: string[]) =>
  Object.fromEntries(series.map((name) => [name, valueOf(text, name)]));
