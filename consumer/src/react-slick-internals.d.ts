/** react-slick's own placement of its track, which the carousel's every-width layout is tested against. */
declare module 'react-slick/lib/utils/innerSliderUtils' {
  export function getTrackLeft(spec: Record<string, unknown>): number;
}
