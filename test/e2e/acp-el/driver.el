;;; driver.el --- drives `strand acp' with acp.el, as Emacs agent-shell does  -*- lexical-binding: t; -*-

;; Run by test/e2e/acp-emacs.test.ts:
;;   emacs --batch -Q -L <dir of acp.el> -l driver.el
;; with STRAND_ACP_NODE, STRAND_ACP_BIN (bin/strand.cjs), ACP_WORKSPACE, ACP_MODEL and ACP_OUT in the
;; environment (plus the stack's addresses, which the agent process inherits). acp.el is the library
;; under Emacs agent-shell (github xenodium/acp.el); this file is strand's own test code.
;;
;; Steps: initialize, session/new, pick the model, prompt, answer the permission request with the
;; "allow once" option, then a second agent process loads the session. Everything the agent sent and
;; every error acp.el raised (it turns each stderr write into one) goes to ACP_OUT as JSON.

(require 'acp)
(require 'json)
(require 'map)

(defvar strand-log nil "What the agent sent, newest first: (phase method update-kind detail).")
(defvar strand-errors nil)
(defvar strand-permissions nil)
(defvar strand-phase "new")

(defun strand-getenv (name)
  (or (getenv name) (error "%s is not set" name)))

(defun strand-client ()
  "A client that records what it hears and answers permission requests with allow once."
  (let ((client (acp-make-client :command (strand-getenv "STRAND_ACP_NODE")
                                 :command-params (list (strand-getenv "STRAND_ACP_BIN") "acp"))))
    (acp-subscribe-to-notifications
     :client client
     :on-notification
     (lambda (notification)
       (let* ((params (map-elt notification 'params))
              (update (map-elt params 'update)))
         (push (list strand-phase
                     (map-elt notification 'method)
                     (map-elt update 'sessionUpdate)
                     (json-serialize (or update '((none . t)))))
               strand-log))))
    (acp-subscribe-to-requests
     :client client
     :on-request
     (lambda (request)
       (let* ((params (map-elt request 'params))
              (options (append (map-elt params 'options) nil))
              (allow (seq-find (lambda (o) (equal (map-elt o 'kind) "allow_once")) options)))
         (push (json-serialize params) strand-permissions)
         (acp-send-response
          :client client
          :response (if allow
                        (acp-make-session-request-permission-response
                         :request-id (map-elt request 'id) :option-id (map-elt allow 'optionId))
                      (acp-make-session-request-permission-response
                       :request-id (map-elt request 'id) :cancelled t))))))
    (acp-subscribe-to-errors
     :client client
     :on-error (lambda (err) (push (format "%S" err) strand-errors)))
    client))

(defun strand-request (client request)
  (json-serialize (or (acp-send-request :client client :request request :sync t) '((empty . t)))))

(let* ((workspace (strand-getenv "ACP_WORKSPACE"))
       (first (strand-client))
       (init (strand-request first (acp-make-initialize-request
                                    :protocol-version 1
                                    :client-info '((name . "acp.el-test") (version . "1"))
                                    :read-text-file-capability t
                                    :write-text-file-capability t)))
       (created (acp-send-request :client first :sync t
                                  :request (acp-make-session-new-request :cwd workspace)))
       (session-id (map-elt created 'sessionId))
       (model (strand-request first (acp-make-session-set-config-option-request
                                     :session-id session-id :config-id "model"
                                     :value (strand-getenv "ACP_MODEL"))))
       (setq-phase (setq strand-phase "prompt"))
       (prompt (strand-request first (acp-make-session-prompt-request
                                      :session-id session-id
                                      :prompt '(((type . "text") (text . "edit the note")))))))
  (ignore setq-phase model)
  (acp-shutdown :client first)
  ;; Another editor (or the same one restarted) opens the session: the conversation replays.
  (setq strand-phase "load")
  (let* ((second (strand-client))
         (_init (strand-request second (acp-make-initialize-request :protocol-version 1)))
         (loaded (strand-request second (acp-make-session-load-request :session-id session-id :cwd workspace))))
    (acp-shutdown :client second)
    (with-temp-file (strand-getenv "ACP_OUT")
      (insert (json-serialize
               `((initialize . ,init)
                 (session_id . ,session-id)
                 (prompt . ,prompt)
                 (load . ,loaded)
                 (permissions . ,(vconcat (reverse strand-permissions)))
                 (errors . ,(vconcat (reverse strand-errors)))
                 (log . ,(vconcat (mapcar (lambda (e) (vconcat (mapcar (lambda (x) (or x "")) e)))
                                          (reverse strand-log))))))))))

(kill-emacs 0)
;;; driver.el ends here
