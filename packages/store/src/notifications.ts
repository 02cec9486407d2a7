import { create } from 'zustand';

export type NotificationTone = 'info' | 'success' | 'error';

export interface Notification {
  id: number;
  message: string;
  tone: NotificationTone;
}

interface NotificationState {
  notifications: Notification[];
  notify: (message: string, tone?: NotificationTone) => number;
  dismiss: (id: number) => void;
}

let nextId = 1;

/** Toasts shown by the shell's notification outlet; any remote may call `notify`. */
export const useNotifications = create<NotificationState>()((set) => ({
  notifications: [],
  notify: (message, tone = 'info') => {
    const id = nextId++;
    set((state) => ({ notifications: [...state.notifications, { id, message, tone }] }));
    return id;
  },
  dismiss: (id) => set((state) => ({ notifications: state.notifications.filter((n) => n.id !== id) })),
}));

export const notify = (message: string, tone?: NotificationTone) => useNotifications.getState().notify(message, tone);
