declare module 'subset-font' {
  /** Subsets (and converts) a font: https://github.com/papandreou/subset-font */
  export default function subsetFont(
    font: Buffer,
    text: string,
    options?: {
      targetFormat?: 'sfnt' | 'woff' | 'woff2' | 'truetype';
      variationAxes?: Record<string, number>;
      keepFeatures?: string[];
      noLayoutClosure?: boolean;
      noHinting?: boolean;
    },
  ): Promise<Buffer>;
}
