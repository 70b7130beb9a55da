"""syncopate.tools"""
