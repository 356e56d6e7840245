import { LitElement, html, css } from 'lit';
import { JsonRpc } from 'jsonrpc';
import '@vaadin/button';
import '@vaadin/combo-box';
import '@vaadin/text-field';
import '@vaadin/grid';
import '@vaadin/grid/vaadin-grid-sort-column.js';

/** How often the status and the decisions are asked again while the page is shown. */
const REFRESH_MILLIS = 2000;

/** The outcomes of a decision, in the order the table shows them (the tags of ratelimit.decisions). */
const OUTCOMES = ['allowed', 'denied', 'shadow-denied', 'deny-cache', 'local-fallback', 'failed-open', 'failed-closed', 'exempt'];

/**
 * The rate limiter as it runs: which backend decides and why, the circuit breaker, whether a failure mode answers,
 * the decisions per policy since the start, and a form reading or resetting one key of one policy, or giving it a limit
 * of its own (a policy with overrides=true).
 */
export class QwcRatelimitLive extends LitElement {

    jsonRpc = new JsonRpc(this);

    static styles = css`
        :host { display: flex; flex-direction: column; gap: 1em; padding: 0 1em 1em 1em; }
        h3 { margin: 0.5em 0 0.2em 0; font-size: var(--lumo-font-size-l); }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; margin: 0; }
        dt { color: var(--lumo-contrast-70pct); }
        dd { margin: 0; }
        .warn { color: var(--lumo-error-text-color); }
        .ok { color: var(--lumo-success-text-color); }
        .form { display: flex; flex-wrap: wrap; gap: 0.5em; align-items: baseline; }
        .error { color: var(--lumo-error-text-color); }
        vaadin-grid { height: auto; }
    `;

    static properties = {
        _status: { state: true },
        _decisions: { state: true },
        _policies: { state: true },
        _policy: { state: true },
        _key: { state: true },
        _plan: { state: true },
        _result: { state: true },
        _limit: { state: true },
        _limited: { state: true },
    };

    constructor() {
        super();
        this._policies = [];
        this._decisions = [];
        this._key = '';
        this._plan = '';
        this._limit = '';
        this._limited = [];
    }

    connectedCallback() {
        super.connectedCallback();
        this.jsonRpc.policies().then(r => {
            this._policies = r.result;
            if (!this._policy && this._policies.length > 0) {
                this._policy = this._policies[0].name;
            }
        });
        this._refresh();
        this._timer = setInterval(() => this._refresh(), REFRESH_MILLIS);
    }

    disconnectedCallback() {
        clearInterval(this._timer);
        super.disconnectedCallback();
    }

    _refresh() {
        this.jsonRpc.status().then(r => this._status = r.result);
        this.jsonRpc.decisions().then(r => this._decisions = r.result);
        this.jsonRpc.limited().then(r => this._limited = r.result);
    }

    render() {
        return html`
            <h3>Backend</h3>
            ${this._renderStatus()}
            <h3>Decisions since start</h3>
            ${this._renderDecisions()}
            <h3>Limited now (last 5 minutes, every instance)</h3>
            ${this._renderLimited()}
            <h3>A key</h3>
            ${this._renderForm()}
            ${this._renderResult()}`;
    }

    _renderStatus() {
        const s = this._status;
        if (!s) {
            return html`<span>Loading…</span>`;
        }
        return html`
            <dl>
                <dt>Deciding</dt><dd><b>${s.backend}</b>: ${s.reason}</dd>
                ${s.redis ? html`<dt>Redis</dt><dd>${s.redis}
                    ${s.redisReachable
                        ? html`<span class="ok">reachable (${s.redisPingMs} ms)</span>`
                        : html`<span class="warn">unreachable: ${s.redisError}</span>`}</dd>` : ''}
                <dt>Circuit breaker</dt><dd class="${s.circuitBreaker === 'closed' ? '' : 'warn'}">${s.circuitBreaker}</dd>
                ${s.leasing ? html`<dt>Quota leasing</dt><dd>${s.leasing}</dd>` : ''}
                <dt>Failure mode</dt>
                <dd class="${s.failureModeAnswering ? 'warn' : ''}">
                    ${s.failureModeAnswering ? 'answering now' : 'not answering'}: ${s.failureModeReason}
                    <br>${Object.entries(s.failureModes).map(([p, m]) => `${p}: ${m}`).join(', ')}
                </dd>
            </dl>`;
    }

    _renderDecisions() {
        return html`
            <vaadin-grid .items="${this._decisions}" theme="compact row-stripes" all-rows-visible>
                <vaadin-grid-sort-column path="policy" header="Policy" auto-width></vaadin-grid-sort-column>
                ${OUTCOMES.map(o => html`<vaadin-grid-sort-column path="${o}" header="${o}" auto-width>
                    </vaadin-grid-sort-column>`)}
            </vaadin-grid>`;
    }

    _renderLimited() {
        if (!this._limited || this._limited.length === 0) {
            return html`<span>Nobody was denied in the last 5 minutes.</span>`;
        }
        return html`<dl>${this._limited.map(row => html`<dt>${row.policy}</dt><dd>${row.keys.map(k =>
            html`<code>${k.identity}</code> ${k.denials} denied<br>`)}</dd>`)}</dl>`;
    }

    _renderForm() {
        const plans = (this._policies.find(p => p.name === this._policy) || { plans: [] }).plans;
        return html`
            <div class="form">
                <vaadin-combo-box label="Policy" .items="${this._policies.map(p => p.name)}" .value="${this._policy}"
                    @value-changed="${e => { this._policy = e.detail.value; this._plan = ''; }}"></vaadin-combo-box>
                <vaadin-text-field label="Key" placeholder="ip=127.0.0.1, hdr=…, user=…" .value="${this._key}" clear-button-visible
                    @value-changed="${e => this._key = e.detail.value}"></vaadin-text-field>
                <vaadin-combo-box label="Plan (optional)" .items="${plans}" .value="${this._plan}" clear-button-visible
                    ?disabled="${plans.length === 0}" @value-changed="${e => this._plan = e.detail.value}">
                </vaadin-combo-box>
                <vaadin-button theme="primary" @click="${this._lookup}">Look up</vaadin-button>
                <vaadin-button theme="error" @click="${this._reset}">Reset</vaadin-button>
            </div>
            ${(this._policies.find(p => p.name === this._policy) || {}).overrides ? html`
            <div class="form">
                <vaadin-text-field label="The key's own limit" placeholder="a number per window" .value="${this._limit}"
                    @value-changed="${e => this._limit = e.detail.value}"></vaadin-text-field>
                <vaadin-button @click="${this._setOverride}">Set override</vaadin-button>
                <vaadin-button @click="${this._clearOverride}">Clear override</vaadin-button>
            </div>` : ''}`;
    }

    _setOverride() {
        this.jsonRpc.setOverride({ policy: this._policy, key: this._key, limit: this._limit })
            .then(r => this._result = r.result);
    }

    _clearOverride() {
        this.jsonRpc.clearOverride({ policy: this._policy, key: this._key })
            .then(r => this._result = r.result);
    }

    _lookup() {
        this.jsonRpc.lookup({ policy: this._policy, key: this._key, plan: this._plan })
            .then(r => this._result = r.result);
    }

    _reset() {
        this.jsonRpc.reset({ policy: this._policy, key: this._key })
            .then(r => this._result = r.result);
    }

    _renderResult() {
        const r = this._result;
        if (!r) {
            return '';
        }
        if (r.error) {
            return html`<div class="error">${r.error}</div>`;
        }
        return html`
            <dl>
                <dt>Policy</dt><dd>${r.policy}${r.plan ? ` (plan ${r.plan})` : ''}, key <code>${r.key}</code>
                    ${r.reset ? html`: <b>reset</b>` : ''}</dd>
                <dt>Next request</dt><dd class="${r.allowed ? 'ok' : 'warn'}">${r.allowed ? 'admitted' : 'denied'}</dd>
                <dt>Remaining</dt><dd>${r.remaining} of ${r.capacity}</dd>
                <dt>Limit</dt><dd>${r.limit} per ${seconds(r.windowMillis)}</dd>
                ${r.allowed ? '' : html`<dt>Retry after</dt><dd>${seconds(r.retryAfterMillis)}</dd>`}
                <dt>More quota in</dt><dd>${seconds(r.resetMillis)}</dd>
                ${r.override ? html`<dt>Override</dt><dd>${r.override}</dd>` : ''}
                ${r.leasedHere !== undefined ? html`<dt>Leased here</dt><dd>${r.leasedHere} units of a slice this
                    instance holds, not used yet (Redis counts them as used until they are used or given back)</dd>` : ''}
                ${r.note ? html`<dt>Note</dt><dd>${r.note}</dd>` : ''}
            </dl>`;
    }
}

function seconds(millis) {
    return millis < 1000 ? `${millis} ms` : `${(millis / 1000).toFixed(millis % 1000 === 0 ? 0 : 1)} s`;
}

customElements.define('qwc-ratelimit-live', QwcRatelimitLive);
