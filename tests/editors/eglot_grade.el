;;; Grades a promptfoo test from eglot as a user does: M-x eglot-code-actions with point in the
;;; test, "Grade this test (…)" picked from the menu; records the actions offered and the messages
;;; the server showed. Environment: RUBRIC_SNIPPET (the docs' eglot block), RUBRIC_FILE,
;;; RUBRIC_JUDGE (judge base URL), RUBRIC_RESPONSE, RUBRIC_OUT.  -*- lexical-binding: t -*-
(require 'json)
(require 'cl-lib)
(package-initialize)
(defvar shown nil "Messages shown, newest first.")
(let* ((errors nil) (offered nil) (chosen nil) (first-answer nil)
       (pick-grade-action
        (lambda ()
          ;; a keyboard invocation: eglot reads the action with completing-read, answered here
          (let ((last-nonmenu-event ?\r))
            (cl-letf (((symbol-function 'completing-read)
                       (lambda (_prompt collection &rest _)
                         (setq offered (mapcar #'car collection))
                         (setq chosen (cl-find-if (lambda (title) (string-prefix-p "Grade this test" title))
                                                  offered)))))
              (eglot-code-actions (point) (point) nil t))))))
  (condition-case err
      (progn
        (load (getenv "RUBRIC_SNIPPET") nil t)
        ;; the documented settings route, pointed at the test's judge
        (setq-default eglot-workspace-configuration
                      `(:rubric (:judge (:model "openai/judge" :apiBase ,(getenv "RUBRIC_JUDGE")))))
        ;; the first grading may wait for the grading engine to load; eglot's default is 10 s
        (setq jsonrpc-default-request-timeout 90)
        (advice-add 'message :before
                    (lambda (format-string &rest args)
                      (when format-string (push (apply #'format format-string args) shown))))
        (find-file (getenv "RUBRIC_FILE"))
        (run-hooks 'post-command-hook)  ; eglot-ensure connects from there
        (let ((deadline (+ (float-time) 45)))
          (while (and (< (float-time) deadline) (not (eglot-current-server)))
            (accept-process-output nil 0.2)))
        (goto-char (point-min))
        (forward-line 5)                ; inside the first test
        (forward-char 6)
        ;; 1. "Grade this test" before any response was graded: the server asks for one
        (funcall pick-grade-action)
        ;; 2. a response graded against the test at point (docs/editor-grading.md, eglot)
        (eglot-execute-command (eglot--current-server-or-lose) 'rubric-lsp.grade
                               (vector (list :kind "response" :text (getenv "RUBRIC_RESPONSE") :test 1)))
        ;; 3. "Grade this test" again: the last response, graded; the verdicts come as a message
        (setq first-answer (cl-find-if (lambda (m) (string-match-p "needs a response" m)) shown))
        (setq shown nil)
        (funcall pick-grade-action)
        (let ((deadline (+ (float-time) 60)))
          (while (and (< (float-time) deadline)
                      (not (cl-find-if (lambda (m) (string-match-p "PASS\\|FAIL" m)) shown)))
            (accept-process-output nil 0.2))))
    (error (push (format "%S" err) errors)))
  (with-temp-file (getenv "RUBRIC_OUT")
    (insert
     (json-encode
      (list (cons 'errors (vconcat errors))
            (cons 'offered (vconcat offered))
            (cons 'chosen chosen)
            (cons 'first first-answer)
            (cons 'messages (vconcat (reverse shown))))))))
(kill-emacs 0)
