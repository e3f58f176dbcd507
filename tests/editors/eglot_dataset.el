;;; The dataset lenses from eglot, which shows no code lenses: the dataset is graded
;;; (rubric-lsp.gradeExamples), then M-x eglot-code-actions on a criterion offers the lenses'
;;; commands; "Show confusion matrix" and "Show 1 disagreeing item(s)" are picked in turn and the
;;; messages the server showed are recorded. Environment: RUBRIC_SNIPPET (the docs' eglot block),
;;; RUBRIC_FILE (the dataset), RUBRIC_LINE (1-based line of the criterion's name), RUBRIC_JUDGE,
;;; RUBRIC_OUT.  -*- lexical-binding: t -*-
(require 'json)
(require 'cl-lib)
(package-initialize)
(defvar shown nil "Messages shown, newest first.")
(let* ((errors nil) (offered nil)
       (pick (lambda (prefix)
               ;; a keyboard invocation: eglot reads the action with completing-read, answered here
               (let ((last-nonmenu-event ?\r))
                 (cl-letf (((symbol-function 'completing-read)
                            (lambda (_prompt collection &rest _)
                              (setq offered (mapcar #'car collection))
                              (cl-find-if (lambda (title) (string-prefix-p prefix title)) offered))))
                   (eglot-code-actions (point) (point) nil t))))))
  (condition-case err
      (progn
        (load (getenv "RUBRIC_SNIPPET") nil t)
        (setq-default eglot-workspace-configuration
                      `(:rubric (:judge (:model "openai/judge" :apiBase ,(getenv "RUBRIC_JUDGE")))))
        (setq jsonrpc-default-request-timeout 90)
        (advice-add 'message :before
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) shown))))
        (find-file (getenv "RUBRIC_FILE"))
        (run-hooks 'post-command-hook)  ; eglot-ensure connects from there
        (let ((deadline (+ (float-time) 45)))
          (while (and (< (float-time) deadline) (not (eglot-current-server)))
            (accept-process-output nil 0.2)))
        (eglot-execute-command (eglot--current-server-or-lose) 'rubric-lsp.gradeExamples
                               (vector (list :uri (if (fboundp 'eglot-path-to-uri)
                                                                 (eglot-path-to-uri buffer-file-name)
                                                               (eglot--path-to-uri buffer-file-name)))))
        (goto-char (point-min))
        (forward-line (1- (string-to-number (getenv "RUBRIC_LINE"))))
        (back-to-indentation)
        (setq shown nil)
        (funcall pick "Show confusion matrix")
        (funcall pick "Show 1 disagreeing")
        (let ((deadline (+ (float-time) 20)))
          (while (and (< (float-time) deadline)
                      (not (cl-find-if (lambda (m) (string-match-p "disagree" m)) shown)))
            (accept-process-output nil 0.2))))
    (error (push (format "%S" err) errors)))
  (with-temp-file (getenv "RUBRIC_OUT")
    (insert
     (json-encode
      (list (cons 'errors (vconcat errors))
            (cons 'offered (vconcat offered))
            (cons 'messages (vconcat (reverse shown))))))))
(kill-emacs 0)
