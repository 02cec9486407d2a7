import { renderStandalone } from '@gift/ui/standalone';

// The pages this remote's routes name, as the dev server serves them without the shell.
renderStandalone('share_location', import.meta.glob('./pages/*.tsx', { eager: true }));
