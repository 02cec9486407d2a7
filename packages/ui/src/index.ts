export * from './faq.tsx';
export * from './icons.tsx';
export * from './section.tsx';
