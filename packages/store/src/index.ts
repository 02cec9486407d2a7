export * from './menu.ts';
export * from './notifications.ts';
