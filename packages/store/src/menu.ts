import { create } from 'zustand';

interface MenuState {
  open: boolean;
  setOpen: (open: boolean) => void;
  toggle: () => void;
}

/** Whether the small-screen menu is open; closed again on every navigation. */
export const useMenu = create<MenuState>()((set) => ({
  open: false,
  setOpen: (open) => set({ open }),
  toggle: () => set((state) => ({ open: !state.open })),
}));
