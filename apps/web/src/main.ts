/** Starts the web app in the page's #app element. */
import { mount } from 'svelte'

import './app.css'
import App from './App.svelte'
import { startLocale } from './lib/i18n/locale.svelte'

const target = document.getElementById('app')
if (!target) throw new Error('index.html has no #app element')

// The first render waits for the chosen language, so a page never flashes by in English first.
await startLocale()

export default mount(App, { target })
