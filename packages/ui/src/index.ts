export * from './banner.tsx';
export * from './faq.tsx';
export * from './icons.tsx';
export * from './section.tsx';
export * from './store-buttons.tsx';
export * from './use-reduced-motion.ts';
export * from './use-scroll-spy.ts';
