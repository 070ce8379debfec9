import { render } from 'preact';
import { OperatorApp } from './operator-app';
import './operator.css';

/** The operator view's entry (served at `/operator`), bundled apart from the chat page: only it carries uPlot. */
render(<OperatorApp />, document.getElementById('app')!);
