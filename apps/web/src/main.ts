/** Starts the web app in the page's #app element. */
import { mount } from 'svelte'

import './app.css'
import App from './App.svelte'

const target = document.getElementById('app')
if (!target) throw new Error('index.html has no #app element')

export default mount(App, { target })
