import { render } from 'preact';
import { App } from './components/app';
import './styles.css';

/** The chat page's entry: the whole page is the App component (served at `/` by the gateway). */
render(<App />, document.getElementById('app')!);
