/** Routers for tests of pages that remotes expose: in the site the shell provides the router. */
export { createMemoryRouter, MemoryRouter, Route, RouterProvider, Routes, StaticRouter } from 'react-router';
