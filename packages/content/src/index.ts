export * from './faq.ts';
export * from './navigation.ts';
export * from './paths.ts';
export * from './routes.ts';
export * from './site.ts';
export * from './metadata.ts';
export * from './form-outcomes.ts';
export * from './goals.ts';
