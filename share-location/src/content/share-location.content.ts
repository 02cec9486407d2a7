export const shareLocation = {
  title: 'Share your delivery location',
  why: 'Someone is sending you a gift: share where you are, or type an address, so it reaches you.',
  actions: {
    locate: 'Share my location',
    typeAddress: 'Type an address instead',
    useLocation: 'Use my location instead',
    confirm: 'Confirm this location',
    confirmAddress: 'Confirm address',
    retry: 'Try again',
    change: 'Change the location',
    openMaps: 'Open in maps',
  },
  locating: 'Finding your location…',
  found: (accuracy: number) => `We found you, accurate to about ${Math.round(accuracy)} m.`,
  addressLabel: 'Delivery address',
  addressHint: 'Street and number, postcode and city.',
  positionNeedsScripts:
    'Sharing your device’s position needs JavaScript, which has not run on this page. You can type your address instead.',
  sending: 'Saving your location…',
  toast: 'Delivery location shared with the sender.',
  shared: {
    title: 'Thank you!',
    position: 'Your location has been shared with the sender. Your gift is on its way.',
    address: 'Your address has been shared with the sender. Your gift is on its way.',
  },
  problemTitles: { locating: 'We couldn’t get your location', saving: 'We couldn’t save your location' },
  problems: {
    denied:
      'Location access is blocked for this site. To allow it, open your browser’s site settings (the icon next to the address) and allow location, then try again. Or type your address instead.',
    unavailable:
      'Your device could not work out where you are right now. Move somewhere with a clearer signal and try again, or type your address.',
    timeout: 'Finding your location took too long. Try again, or type your address.',
    unsupported: 'This browser cannot share a location. Please type your address instead.',
    badLink:
      'This link is incomplete or damaged. Open the link from your message again, or ask the sender for a new one.',
    refused: 'We could not save your location: the link may have expired. Ask the sender for a new link.',
    unreachable: 'We could not reach our server. Check your connection and try again.',
    addressTooShort: 'Enter the full delivery address.',
    notSaved: 'We could not save your address just now. Please try again in a moment.',
  },
};

export const geolocationOptions: PositionOptions = { enableHighAccuracy: true, timeout: 15_000, maximumAge: 0 };
