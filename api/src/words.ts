// How the servers and commands write counts in their lines.
/** 12,345: thousands apart, as the commands print counts (without Intl, which the simulators would pay for at every look). */
export const thousands = (value: number) => String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A count and its noun, singular for one: "1 page", "2 pages", "1,204 webhook events". */
export const counted = (count: number, one: string, many = `${one}s`) =>
  `${thousands(count)} ${count === 1 ? one : many}`;
